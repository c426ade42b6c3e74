import { out } from '../lib/cli.mjs';
import { adminRequire } from '../lib/clients.mjs';

export default {
  name: ['dev', 'key', 'create'],
  summary: 'Create an API key for an app (admin API POST /apps/{appId}/keys); prints it, secret included, as JSON.',
  options: {
    app: { type: 'string', required: true, placeholder: 'appId', description: 'app id (app_…)' },
    env: { type: 'string', required: true, choices: ['sandbox', 'live'], description: 'key environment' },
    scopes: { type: 'string', placeholder: 'a,b', description: 'comma-separated scopes (default: all)' },
    'expires-at': { type: 'string', format: 'time', placeholder: 'ISO', description: 'expiry time' },
  },
  examples: ['platformctl dev key create --app app_… --env sandbox'],
  async run({ values, config }) {
    const body = {
      environment: values.env,
      ...(values.scopes ? { scopes: values.scopes.split(',').map((s) => s.trim()) } : {}),
      ...(values['expires-at'] ? { expiresAt: new Date(values['expires-at']).toISOString() } : {}),
    };
    out(JSON.stringify(await adminRequire(config, 'POST', `/apps/${encodeURIComponent(values.app)}/keys`, body), null, 2));
  },
};
