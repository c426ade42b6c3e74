import { CONSOLE_CHANGES, type AuditEntry, type ConsoleChange } from '../audit/audit-trail';

/** One audit entry in words: who did what. */
export function auditLine(entry: AuditEntry): string {
  const d = entry.data;
  const who = typeof d.by === 'string' ? d.by : 'the platform';
  switch (entry.type) {
    case 'MemberAdded':
      return d.by ? `${who} added ${String(d.email)} as ${String(d.role)}` : `${String(d.email)} became ${String(d.role)}`;
    case 'MemberInvited':
      return `${who} invited ${String(d.email)}`;
    case 'InvitationAccepted':
      return `${String(d.email)} accepted the invitation`;
    case 'InvitationReplaced':
      return `${who} replaced the earlier invitation of ${String(d.email)}`;
    case 'InvitationWithdrawn':
      return `${who} withdrew the invitation of ${String(d.email)}`;
    case 'MemberRoleChanged':
      return d.role === 'owner' ? `${who} made ${String(d.email)} an owner` : `${who} made ${String(d.email)} a ${String(d.role)}`;
    case 'MemberRemoved':
      return `${who} removed ${String(d.email)}`;
    case 'ConsoleChangeMade':
      return `${who} ${CONSOLE_CHANGES[d.change as ConsoleChange] ?? String(d.change)} ${String(d.subject)}`;
    default:
      return entry.type;
  }
}
