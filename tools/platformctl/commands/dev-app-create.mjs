import { out } from '../lib/cli.mjs';
import { adminRequire } from '../lib/clients.mjs';

export default {
  name: ['dev', 'app', 'create'],
  summary: 'Create a sandbox app in an org (admin API POST /apps); prints it as JSON.',
  options: {
    org: { type: 'string', required: true, placeholder: 'orgId', description: 'org id (org_…)' },
    handle: { type: 'string', required: true, description: 'public handle: 2-48 of a-z 0-9 _ . -' },
    name: { type: 'string', required: true, description: 'display name (2-60 characters)' },
    'creator-email': { type: 'string', description: 'email of the creating user' },
  },
  examples: ['platformctl dev app create --org org_… --handle acme --name "Acme Support"'],
  async run({ values, config }) {
    const body = {
      orgId: values.org,
      handle: values.handle,
      displayName: values.name,
      ...(values['creator-email'] ? { creatorEmail: values['creator-email'] } : {}),
    };
    out(JSON.stringify(await adminRequire(config, 'POST', '/apps', body), null, 2));
  },
};
