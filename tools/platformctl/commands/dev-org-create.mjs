import { out } from '../lib/cli.mjs';
import { adminRequire } from '../lib/clients.mjs';

export default {
  name: ['dev', 'org', 'create'],
  summary: 'Create a chat-product org (admin API POST /orgs); prints it as JSON.',
  options: {
    name: { type: 'string', required: true, description: 'org name' },
    'no-external': { type: 'boolean', description: 'refuse businesses outside the org (allowsExternalBusinesses false)' },
  },
  examples: ['platformctl dev org create --name "Acme"'],
  async run({ values, config }) {
    out(JSON.stringify(await adminRequire(config, 'POST', '/orgs', { name: values.name, allowsExternalBusinesses: !values['no-external'] }), null, 2));
  },
};
