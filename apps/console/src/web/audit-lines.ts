import type { AuditEntry } from '../members/members.handler';

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
    case 'MemberRemoved':
      return `${who} removed ${String(d.email)}`;
    default:
      return entry.type;
  }
}
