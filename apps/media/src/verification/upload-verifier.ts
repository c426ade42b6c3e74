import { fileTypeFromBuffer } from 'file-type';
import type { MediaRejectionReason } from '#platform/contracts';

/**
 * How many leading bytes of a stored upload the service fetches (one ranged GET) to judge it.
 *
 * file-type settles most formats within its first 4100 bytes, but docx, xlsx and pptx are only told
 * apart by walking the zip's local headers to `[Content_Types].xml` (which names the main part) or to
 * a `word/`, `xl/` or `ppt/` part, and some writers put other parts (thumbnails included) first.
 * 64 KiB, the most a sniff may cost, reaches them in practice and is still one small ranged read.
 */
export const SNIFF_BYTES = 64 * 1024;

/** D12: whether an upload is what the app declared, and if not, why (the reason goes on MediaUploadRejected). */
export type UploadVerdict = { ok: true } | { ok: false; reason: MediaRejectionReason; detail: string };

/** What the service knows about a finished upload: the declaration, the object's size and its first bytes. */
export interface UploadToJudge {
  declaredMimeType: string;
  declaredSize: number;
  storedSize: number;
  /** The first min(SNIFF_BYTES, storedSize) bytes of the stored object. */
  head: Buffer;
}

type ContentRule = { kind: 'text' } | { kind: 'sniffed'; mimeTypes: readonly string[]; genericZipIfCut?: true };

const sniffed = (...mimeTypes: string[]): ContentRule => ({ kind: 'sniffed', mimeTypes });
const TEXT: ContentRule = { kind: 'text' };
const OLE_COMPOUND_FILE = sniffed('application/x-cfb');
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const PPTX = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';

/**
 * For every declarable type (UPLOAD_MIME_TYPES), what the stored bytes must be: text, or one of the
 * MIME types file-type reports for that format.
 *
 * - Images and PDF are exact. The one alias each is the same format under another name: file-type
 *   calls a PNG with an animation chunk `image/apng`, and a PDF saved by Illustrator with its editing
 *   data `ai` (see `sniff`).
 * - ISO-BMFF (mp4, 3gp, mov, m4a) is named by the ftyp major brand alone: `M4V ` is a plain mp4
 *   video, a 3GPP2 file is the same container as 3GPP, `M4A `/`M4B ` are audio. Video and audio are
 *   not mixed, so a video cannot pass as audio (D10 kinds).
 * - Ogg is named by its first stream: Vorbis, FLAC and Speex are `audio/ogg`, Opus is
 *   `audio/ogg; codecs=opus`; Theora is `video/ogg` and not accepted as audio.
 * - Legacy Office files are all OLE compound files; file-type cannot tell .doc, .xls and .ppt apart.
 * - OOXML must be its own kind when file-type finds a part that names it. When the head is cut
 *   before any such part, file-type can only say `application/zip`, which is then accepted; when the
 *   head is the whole file, a bare zip is not an Office document.
 */
const CONTENT_RULES: Readonly<Record<string, ContentRule>> = {
  'image/jpeg': sniffed('image/jpeg'),
  'image/png': sniffed('image/png', 'image/apng'),
  'image/webp': sniffed('image/webp'),
  'image/gif': sniffed('image/gif'),
  'video/mp4': sniffed('video/mp4', 'video/x-m4v'),
  'video/3gpp': sniffed('video/3gpp', 'video/3gpp2'),
  'video/quicktime': sniffed('video/quicktime'),
  'audio/mpeg': sniffed('audio/mpeg'),
  // Audio-only MP4s with a generic brand (isom/mp42, as ffmpeg and many phones write) sniff as video.
  'audio/mp4': sniffed('audio/mp4', 'audio/x-m4a', 'video/mp4'),
  'audio/aac': sniffed('audio/aac'),
  'audio/ogg': sniffed('audio/ogg', 'audio/ogg; codecs=opus'),
  'audio/amr': sniffed('audio/amr'),
  'application/pdf': sniffed('application/pdf'),
  'text/plain': TEXT,
  'text/csv': TEXT,
  'application/msword': OLE_COMPOUND_FILE,
  'application/vnd.ms-excel': OLE_COMPOUND_FILE,
  'application/vnd.ms-powerpoint': OLE_COMPOUND_FILE,
  [DOCX]: { kind: 'sniffed', mimeTypes: [DOCX], genericZipIfCut: true },
  [XLSX]: { kind: 'sniffed', mimeTypes: [XLSX], genericZipIfCut: true },
  [PPTX]: { kind: 'sniffed', mimeTypes: [PPTX], genericZipIfCut: true },
};

/**
 * D12: judges a finished upload against its declaration. The stored size must equal the declared
 * one; the head must sniff as the declared format (CONTENT_RULES), or for text/plain and text/csv
 * be UTF-8 text without NUL bytes that file-type does not take for a binary format.
 */
export async function judgeUpload(input: UploadToJudge): Promise<UploadVerdict> {
  const { declaredSize, storedSize, head } = input;
  if (storedSize !== declaredSize) {
    return { ok: false, reason: 'size_mismatch', detail: `declared ${declaredSize} bytes, stored ${storedSize} bytes` };
  }
  const declared = input.declaredMimeType.split(';')[0].trim().toLowerCase();
  const rule = CONTENT_RULES[declared];
  if (!rule) {
    return contentMismatch(`declared ${input.declaredMimeType}, which is not an upload type`);
  }
  // A head shorter than the object may end inside a UTF-8 sequence or a zip entry.
  const cut = head.length < storedSize;
  if (rule.kind === 'text') {
    // Not sniffed: file-type's weaker signatures match ordinary prose ("The free market…" reads as
    // QuickTime, a CSV starting "BMW," as a bitmap). Binary formats all show NUL bytes or invalid UTF-8.
    const notText = whyNotText(head, cut);
    return notText ? contentMismatch(`declared ${declared}, found ${notText}`) : { ok: true };
  }

  const found = await sniff(head);
  if (found && (rule.mimeTypes.includes(found) || (found === 'application/zip' && rule.genericZipIfCut && cut))) {
    return { ok: true };
  }
  return contentMismatch(`declared ${declared}, found ${found ?? describeUnsniffed(head, cut)}`);
}

function contentMismatch(detail: string): UploadVerdict {
  return { ok: false, reason: 'content_mismatch', detail };
}

function describeUnsniffed(head: Buffer, cut: boolean): string {
  if (head.length === 0) return 'an empty file';
  return whyNotText(head, cut) ? 'unrecognised data' : 'text';
}

/** The MIME type file-type finds in the head, if any. */
async function sniff(head: Buffer): Promise<string | undefined> {
  let result: Awaited<ReturnType<typeof fileTypeFromBuffer>>;
  try {
    result = await fileTypeFromBuffer(head);
  } catch {
    // A head may end inside, or be crafted to break, the structure the sniffer is parsing (a zip
    // entry, a chunk): bytes the sniffer cannot parse are bytes it did not recognise.
    return undefined;
  }
  if (!result) return undefined;
  // The Illustrator check only runs on files that start with %PDF: such a file is a PDF.
  return result.ext === 'ai' ? 'application/pdf' : result.mime;
}

/** Why the head is not UTF-8 text, or null if it is. */
function whyNotText(head: Buffer, cut: boolean): string | null {
  const nul = head.indexOf(0);
  if (nul >= 0) return `binary data (NUL byte at offset ${nul})`;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    // Streaming keeps a trailing partial sequence pending instead of failing on it; only a head
    // that is the whole file must end on a character boundary.
    decoder.decode(head, { stream: true });
    if (!cut) decoder.decode();
  } catch {
    return 'invalid UTF-8';
  }
  return null;
}
