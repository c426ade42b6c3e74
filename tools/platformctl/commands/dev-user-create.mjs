import { out } from '../lib/cli.mjs';
import { adminRequire } from '../lib/clients.mjs';

export default {
  name: ['dev', 'user', 'create'],
  summary: 'Create a simulated chat user in an org (admin API POST /users); prints it as JSON.',
  options: {
    org: { type: 'string', required: true, placeholder: 'orgId', description: 'org id (org_…)' },
    email: { type: 'string', required: true, description: 'user email' },
    'display-name': { type: 'string', description: 'display name' },
  },
  examples: ['platformctl dev user create --org org_… --email ana@example.com'],
  async run({ values, config }) {
    const body = { orgId: values.org, email: values.email, ...(values['display-name'] ? { displayName: values['display-name'] } : {}) };
    out(JSON.stringify(await adminRequire(config, 'POST', '/users', body), null, 2));
  },
};
