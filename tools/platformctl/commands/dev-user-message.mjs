import { out } from '../lib/cli.mjs';
import { adminRequire } from '../lib/clients.mjs';

export default {
  name: ['dev', 'user', 'message'],
  summary: 'Simulate a user writing to an app (admin API POST /sim/users/{userId}/messages); prints {id, appUserId}.',
  description: 'Returns once the platform has taken the message in (it opens the 24 h window and, for a new user, opts in).',
  options: {
    user: { type: 'string', required: true, placeholder: 'userId', description: 'simulated user id (usr_…)' },
    app: { type: 'string', required: true, placeholder: 'appId', description: 'app id (app_…)' },
    text: { type: 'string', required: true, description: 'message text' },
    'reply-to': { type: 'string', placeholder: 'msg_…', description: 'an app message the user replies to' },
  },
  examples: ['platformctl dev user message --user usr_… --app app_… --text "hi"'],
  async run({ values, config }) {
    const body = { appId: values.app, type: 'text', text: values.text, ...(values['reply-to'] ? { replyTo: values['reply-to'] } : {}) };
    out(JSON.stringify(await adminRequire(config, 'POST', `/sim/users/${encodeURIComponent(values.user)}/messages`, body), null, 2));
  },
};
