import { crc32, deflateRawSync, deflateSync } from 'node:zlib';
import { UPLOAD_MIME_TYPES } from '#platform/contracts';
import { judgeUpload, SNIFF_BYTES, type UploadVerdict } from './upload-verifier';

// The fixtures are the leading bytes real encoders write, built here so each test shows which
// structure file-type keys on.

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const PPTX = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';

const latin1 = (text: string) => Buffer.from(text, 'latin1');
const u32be = (value: number) => {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value);
  return out;
};
const u32le = (value: number) => {
  const out = Buffer.alloc(4);
  out.writeUInt32LE(value);
  return out;
};
const u16le = (value: number) => {
  const out = Buffer.alloc(2);
  out.writeUInt16LE(value);
  return out;
};

function pngChunk(type: string, data: Buffer): Buffer {
  const typeAndData = Buffer.concat([latin1(type), data]);
  return Buffer.concat([u32be(data.length), typeAndData, u32be(crc32(typeAndData))]);
}

/** A complete 1×1 RGBA PNG, optionally with an APNG animation-control chunk before the image data. */
function png(options: { animated?: boolean } = {}): Buffer {
  const ihdr = Buffer.concat([u32be(1), u32be(1), Buffer.from([8, 6, 0, 0, 0])]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    ...(options.animated ? [pngChunk('acTL', Buffer.concat([u32be(1), u32be(0)]))] : []),
    pngChunk('IDAT', deflateSync(Buffer.from([0, 0xff, 0, 0, 0xff]))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

const jpeg = Buffer.concat([
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]),
  latin1('JFIF\0'),
  Buffer.from([0x01, 0x01, 0x00, 0x00, 0x48, 0x00, 0x48, 0x00, 0x00]),
  Buffer.from([0xff, 0xdb, 0x00, 0x43, 0x00]),
  Buffer.alloc(64, 0x10),
]);

const gif = Buffer.concat([
  latin1('GIF89a'),
  Buffer.from([0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00]),
  Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff, 0xff]),
  Buffer.from([0x2c, 0, 0, 0, 0, 0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3b]),
]);

function webp(): Buffer {
  // Key-frame tag, start code 9D 01 2A, then 14-bit width and height.
  const vp8 = Buffer.concat([Buffer.from([0x30, 0x01, 0x00, 0x9d, 0x01, 0x2a, 0x01, 0x00, 0x01, 0x00]), Buffer.alloc(8)]);
  const body = Buffer.concat([latin1('WEBP'), latin1('VP8 '), u32le(vp8.length), vp8]);
  return Buffer.concat([latin1('RIFF'), u32le(body.length), body]);
}

/** An ISO-BMFF file start: the ftyp box (major brand, minor version, compatible brands), then an mdat header. */
function isoBmff(major: string, minor: number, compatible: string[]): Buffer {
  const payload = Buffer.concat([latin1(major), u32be(minor), ...compatible.map(latin1)]);
  const ftyp = Buffer.concat([u32be(8 + payload.length), latin1('ftyp'), payload]);
  return Buffer.concat([ftyp, u32be(8 + 32), latin1('mdat'), Buffer.alloc(32)]);
}

/** QuickTime files from before ftyp start with a `wide` placeholder atom, then mdat. */
const legacyQuickTime = Buffer.concat([u32be(8), latin1('wide'), u32be(8 + 32), latin1('mdat'), Buffer.alloc(32)]);

function syncsafe(value: number): Buffer {
  return Buffer.from([(value >> 21) & 0x7f, (value >> 14) & 0x7f, (value >> 7) & 0x7f, value & 0x7f]);
}

/** An ID3v2.4 tag with a title frame, padded to `size` bytes of tag body (cover art makes it large). */
function id3Tag(size = 0): Buffer {
  const title = Buffer.concat([Buffer.from([0x03]), latin1('Test')]);
  const frame = Buffer.concat([latin1('TIT2'), syncsafe(title.length), Buffer.from([0, 0]), title]);
  const body = Buffer.concat([frame, Buffer.alloc(Math.max(0, size - frame.length))]);
  return Buffer.concat([latin1('ID3'), Buffer.from([0x04, 0x00, 0x00]), syncsafe(body.length), body]);
}

/** MPEG-1 Layer III frames, 128 kbit/s, 44.1 kHz: 417 bytes each. */
const mpegFrames = Buffer.concat([0, 1, 2].map(() => Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(413)])));

function adtsFrame(payload: Buffer): Buffer {
  // MPEG-4, no CRC, AAC LC, 44.1 kHz, stereo.
  const length = 7 + payload.length;
  const header = Buffer.from([0xff, 0xf1, 0x50, 0x80 | ((length >> 11) & 0x03), (length >> 3) & 0xff, ((length & 0x07) << 5) | 0x1f, 0xfc]);
  return Buffer.concat([header, payload]);
}
const adts = Buffer.concat([adtsFrame(Buffer.from([0x21, 0x10, 0x04, 0x60, 0x8c, 0x1c])), adtsFrame(Buffer.from([0x21, 0x10, 0x04, 0x60, 0x8c, 0x1c]))]);

function oggCrc(page: Buffer): number {
  let crc = 0;
  for (const byte of page) {
    crc ^= byte << 24;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x80000000 ? (crc << 1) ^ 0x04c11db7 : crc << 1;
  }
  return crc >>> 0;
}

/** The first (beginning-of-stream) Ogg page, carrying one codec identification packet. */
function oggFirstPage(packet: Buffer): Buffer {
  const page = Buffer.concat([
    latin1('OggS'),
    Buffer.from([0x00, 0x02]),
    Buffer.alloc(8),
    u32le(0x1234),
    u32le(0),
    u32le(0),
    Buffer.from([1, packet.length]),
    packet,
  ]);
  page.writeUInt32LE(oggCrc(page), 22);
  return page;
}
const opusHead = Buffer.concat([latin1('OpusHead'), Buffer.from([1, 1]), u16le(312), u32le(48000), u16le(0), Buffer.from([0])]);
const vorbisId = Buffer.concat([latin1('\x01vorbis'), u32le(0), Buffer.from([2]), u32le(44100), u32le(0), u32le(128000), u32le(0), Buffer.from([0xb8, 0x01])]);
const theoraId = Buffer.concat([latin1('\x80theora'), Buffer.from([3, 2, 1]), Buffer.alloc(32)]);

const amr = Buffer.concat([latin1('#!AMR\n'), ...[0, 1, 2].map(() => Buffer.concat([Buffer.from([0x3c]), Buffer.alloc(31, 0x55)]))]);

const pdf = latin1('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n');
/** Illustrator's "preserve editing capabilities" PDFs carry AIPrivateData streams, which file-type looks for past byte 1350. */
const illustratorPdf = Buffer.concat([pdf, latin1(`%${' '.repeat(1400)}\n3 0 obj\n<< /AIPrivateData1 4 0 R >>\nendobj\n`)]);

/** An OLE compound file (.doc, .xls, .ppt): the 512-byte header, then its first FAT sector. */
function compoundFile(): Buffer {
  const header = Buffer.alloc(512, 0xff);
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(header, 0);
  header.fill(0, 8, 24);
  header.writeUInt16LE(0x003e, 24);
  header.writeUInt16LE(0x0003, 26);
  header.writeUInt16LE(0xfffe, 28);
  header.writeUInt16LE(9, 30);
  header.writeUInt16LE(6, 32);
  header.fill(0, 34, 44);
  header.writeUInt32LE(1, 44);
  header.writeUInt32LE(1, 48);
  header.writeUInt32LE(0, 52);
  header.writeUInt32LE(0x1000, 56);
  header.writeUInt32LE(0xfffffffe, 60);
  header.writeUInt32LE(0, 64);
  header.writeUInt32LE(0xfffffffe, 68);
  header.writeUInt32LE(0, 72);
  header.writeUInt32LE(0, 76);
  const fat = Buffer.alloc(512, 0xff);
  fat.writeUInt32LE(0xfffffffd, 0);
  fat.writeUInt32LE(0xfffffffe, 4);
  return Buffer.concat([header, fat]);
}

/** A zip archive as Office writes it: deflated entries in order, central directory, end record. */
function zip(entries: Array<[name: string, content: Buffer | string, method?: 'store']>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content, method] of entries) {
    const data = Buffer.from(content);
    const stored = method === 'store';
    const compressed = stored ? data : deflateRawSync(data);
    const fileName = Buffer.from(name, 'utf8');
    const common = Buffer.concat([
      u16le(20),
      u16le(0),
      u16le(stored ? 0 : 8),
      u16le(0),
      u16le(0x21),
      u32le(crc32(data)),
      u32le(compressed.length),
      u32le(data.length),
      u16le(fileName.length),
      u16le(0),
    ]);
    const local = Buffer.concat([u32le(0x04034b50), common, fileName, compressed]);
    centrals.push(Buffer.concat([u32le(0x02014b50), u16le(20), common, u16le(0), u16le(0), u16le(0), u32le(0), u32le(offset), fileName]));
    locals.push(local);
    offset += local.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.concat([
    u32le(0x06054b50),
    u16le(0),
    u16le(0),
    u16le(entries.length),
    u16le(entries.length),
    u32le(directory.length),
    u32le(offset),
    u16le(0),
  ]);
  return Buffer.concat([...locals, directory, end]);
}

/** The content type Word, Excel and PowerPoint give their main part in `[Content_Types].xml`. */
const MAIN_PART_TYPES: Record<string, string> = {
  '/word/document.xml': `${DOCX}.main+xml`,
  '/xl/workbook.xml': `${XLSX}.main+xml`,
  '/ppt/presentation.xml': `${PPTX}.main+xml`,
};
const contentTypes = (main: string) =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="${main}" ContentType="${MAIN_PART_TYPES[main]}"/></Types>`;
const rootRels = (main: string) =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="${main.slice(1)}"/></Relationships>`;

type ZipEntry = [string, Buffer, 'store'];

/** An Office document; `first` entries precede `[Content_Types].xml`, `before` ones the main part. */
function ooxml(main: string, before: ZipEntry[] = [], first: ZipEntry[] = []): Buffer {
  return zip([
    ...first,
    ['[Content_Types].xml', contentTypes(main)],
    ['_rels/.rels', rootRels(main)],
    ...before,
    [main.slice(1), `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<root/>`],
  ]);
}
const docx = ooxml('/word/document.xml');
const xlsx = ooxml('/xl/workbook.xml');
const pptx = ooxml('/ppt/presentation.xml');
const largeThumbnail: ZipEntry = ['docProps/thumbnail.jpeg', Buffer.concat([jpeg, Buffer.alloc(SNIFF_BYTES, 0x5a)]), 'store'];
/** A docx whose thumbnail precedes the document part and pushes it past the sniffed head. */
const docxWithLargeThumbnail = ooxml('/word/document.xml', [largeThumbnail]);
/** A docx whose writer put the thumbnail first: every part that names the kind lies past the head. */
const docxNamedPastTheHead = ooxml('/word/document.xml', [], [largeThumbnail]);
const plainZip = zip([['notes.txt', 'not an office document']]);

/** Judges `file` as the service would: declared and stored size agree, the head is its first SNIFF_BYTES. */
function judge(declaredMimeType: string, file: Buffer): Promise<UploadVerdict> {
  return judgeUpload({ declaredMimeType, declaredSize: file.length, storedSize: file.length, head: file.subarray(0, SNIFF_BYTES) });
}

const mismatch = (detail: string) => ({ ok: false, reason: 'content_mismatch', detail });

describe('SNIFF_BYTES', () => {
  it('covers what file-type reads for most formats and stays within 64 KiB', () => {
    expect(SNIFF_BYTES).toBeGreaterThanOrEqual(4100);
    expect(SNIFF_BYTES).toBeLessThanOrEqual(64 * 1024);
  });
});

describe('judgeUpload accepts each declarable type', () => {
  const typical: Array<{ declared: string; file: Buffer }> = [
    { declared: 'image/jpeg', file: jpeg },
    { declared: 'image/png', file: png() },
    { declared: 'image/webp', file: webp() },
    { declared: 'image/gif', file: gif },
    { declared: 'video/mp4', file: isoBmff('isom', 0x200, ['isom', 'iso2', 'avc1', 'mp41']) },
    { declared: 'video/3gpp', file: isoBmff('3gp4', 0, ['isom', '3gp4']) },
    { declared: 'video/quicktime', file: isoBmff('qt  ', 0x20050300, ['qt  ']) },
    { declared: 'audio/mpeg', file: Buffer.concat([id3Tag(), mpegFrames]) },
    { declared: 'audio/mp4', file: isoBmff('M4A ', 0, ['M4A ', 'mp42', 'isom']) },
    { declared: 'audio/aac', file: adts },
    { declared: 'audio/ogg', file: oggFirstPage(vorbisId) },
    { declared: 'audio/amr', file: amr },
    { declared: 'application/pdf', file: pdf },
    { declared: 'text/plain', file: Buffer.from('Hello,\nsee you at 10:30 — bring the tickets.\n') },
    { declared: 'text/csv', file: Buffer.from('name,city,amount\nZoë,München,12.50\nLi,北京,3\n') },
    { declared: 'application/msword', file: compoundFile() },
    { declared: DOCX, file: docx },
    { declared: 'application/vnd.ms-excel', file: compoundFile() },
    { declared: XLSX, file: xlsx },
    { declared: 'application/vnd.ms-powerpoint', file: compoundFile() },
    { declared: PPTX, file: pptx },
  ];

  it('has a typical file for every type POST /media accepts', () => {
    expect(typical.map(({ declared }) => declared).sort()).toEqual(Object.keys(UPLOAD_MIME_TYPES).sort());
  });

  it.each(typical)('$declared', async ({ declared, file }) => {
    await expect(judge(declared, file)).resolves.toEqual({ ok: true });
  });
});

describe('judgeUpload accepts the other names file-type gives a declared format', () => {
  it.each([
    { name: 'an animated PNG as image/png', declared: 'image/png', file: png({ animated: true }) },
    { name: 'a PDF saved by Illustrator as application/pdf', declared: 'application/pdf', file: illustratorPdf },
    { name: 'an mp42 file as video/mp4', declared: 'video/mp4', file: isoBmff('mp42', 0, ['mp42', 'isom']) },
    { name: 'an M4V file as video/mp4', declared: 'video/mp4', file: isoBmff('M4V ', 1, ['M4V ', 'M4A ', 'mp42', 'isom']) },
    { name: 'a 3GPP2 file as video/3gpp', declared: 'video/3gpp', file: isoBmff('3g2a', 0, ['3g2a']) },
    { name: 'a QuickTime file without ftyp as video/quicktime', declared: 'video/quicktime', file: legacyQuickTime },
    { name: 'an M4B audiobook as audio/mp4', declared: 'audio/mp4', file: isoBmff('M4B ', 0, ['M4B ', 'mp42', 'isom']) },
    { name: 'an audio MP4 with a generic brand (sniffed as video/mp4) as audio/mp4', declared: 'audio/mp4', file: isoBmff('isom', 0x200, ['isom', 'mp41']) },
    { name: 'prose that file-type mistakes for QuickTime as text/plain', declared: 'text/plain', file: Buffer.from('The free market decides.\n') },
    { name: 'a CSV that file-type mistakes for a bitmap as text/csv', declared: 'text/csv', file: Buffer.from('BMW,Munich\nAudi,Ingolstadt\n') },
    { name: 'MPEG audio without an ID3 tag as audio/mpeg', declared: 'audio/mpeg', file: mpegFrames },
    {
      name: 'an MP3 whose ID3 tag (cover art) runs past the head as audio/mpeg',
      declared: 'audio/mpeg',
      file: Buffer.concat([id3Tag(SNIFF_BYTES + 1000), mpegFrames]),
    },
    { name: 'Ogg Opus as audio/ogg', declared: 'audio/ogg', file: oggFirstPage(opusHead) },
    { name: 'a docx whose document part lies past the head ([Content_Types].xml names it)', declared: DOCX, file: docxWithLargeThumbnail },
    { name: 'a docx whose naming parts all lie past the head (file-type only sees a zip)', declared: DOCX, file: docxNamedPastTheHead },
    { name: 'a declared type with parameters', declared: 'text/plain; charset=utf-8', file: Buffer.from('hi\n') },
  ])('$name', async ({ declared, file }) => {
    await expect(judge(declared, file)).resolves.toEqual({ ok: true });
  });

  it('cannot tell OOXML kinds apart when the head ends before every part that names them', async () => {
    await expect(judge(XLSX, docxNamedPastTheHead)).resolves.toEqual({ ok: true });
  });
});

describe('judgeUpload accepts text', () => {
  const bom = Buffer.from([0xef, 0xbb, 0xbf]);

  it.each([
    { name: 'with a UTF-8 byte order mark', declared: 'text/csv', file: Buffer.concat([bom, Buffer.from('a;b\n1;2\n')]) },
    { name: 'that is an empty file', declared: 'text/plain', file: Buffer.alloc(0) },
    { name: 'in a textual format file-type knows (XML)', declared: 'text/plain', file: Buffer.from('<?xml version="1.0"?>\n<note>hi</note>\n') },
    {
      name: 'with a multi-byte character cut off by the head',
      declared: 'text/plain',
      file: Buffer.concat([Buffer.alloc(SNIFF_BYTES - 1, 'a'), Buffer.from('é and more\n')]),
    },
  ])('$name', async ({ declared, file }) => {
    await expect(judge(declared, file)).resolves.toEqual({ ok: true });
  });
});

describe('judgeUpload rejects content that is not what was declared', () => {
  it.each([
    { name: 'PNG declared, text stored', declared: 'image/png', file: Buffer.from('definitely not a picture\n'), found: 'text' },
    { name: 'PDF declared, PNG stored', declared: 'application/pdf', file: png(), found: 'image/png' },
    { name: 'JPEG declared, PNG stored', declared: 'image/jpeg', file: png(), found: 'image/png' },
    { name: 'GIF declared, random bytes stored', declared: 'image/gif', file: Buffer.from([0x13, 0x37, 0xc0, 0xde, 0x00, 0xfe]), found: 'unrecognised data' },
    { name: 'PNG declared, only the PNG signature stored', declared: 'image/png', file: png().subarray(0, 8), found: 'unrecognised data' },
    {
      name: 'audio/ogg declared, a page cut before its packet stored',
      declared: 'audio/ogg',
      file: oggFirstPage(opusHead).subarray(0, 20),
      found: 'unrecognised data',
    },
    { name: 'PNG declared, empty file stored', declared: 'image/png', file: Buffer.alloc(0), found: 'an empty file' },
    {
      name: 'PDF declared, PostScript stored',
      declared: 'application/pdf',
      file: Buffer.from('%!PS-Adobe-3.0\n%%Pages: 1\n'),
      found: 'application/postscript',
    },
    { name: 'text/plain declared, PNG stored', declared: 'text/plain', file: png(), found: 'binary data (NUL byte at offset 8)' },
    { name: 'text with a NUL byte', declared: 'text/plain', file: Buffer.from('abc\0def\n'), found: 'binary data (NUL byte at offset 3)' },
    { name: 'text in Latin-1, not UTF-8', declared: 'text/csv', file: latin1('name\nM\xfcller\n'), found: 'invalid UTF-8' },
    { name: 'text ending inside a multi-byte character', declared: 'text/plain', file: Buffer.from('caf\xc3', 'latin1'), found: 'invalid UTF-8' },
    { name: 'docx declared, xlsx stored', declared: DOCX, file: xlsx, found: XLSX },
    { name: 'xlsx declared, docx stored', declared: XLSX, file: docx, found: DOCX },
    { name: 'pptx declared, docx stored', declared: PPTX, file: docx, found: DOCX },
    { name: 'xlsx declared, a docx whose document part lies past the head', declared: XLSX, file: docxWithLargeThumbnail, found: DOCX },
    { name: 'docx declared, a plain zip stored whole', declared: DOCX, file: plainZip, found: 'application/zip' },
    { name: 'doc declared, docx stored', declared: 'application/msword', file: docx, found: DOCX },
    { name: 'docx declared, doc stored', declared: DOCX, file: compoundFile(), found: 'application/x-cfb' },
    { name: 'audio/ogg declared, Ogg Theora video stored', declared: 'audio/ogg', file: oggFirstPage(theoraId), found: 'video/ogg' },
    { name: 'video/mp4 declared, QuickTime stored', declared: 'video/mp4', file: isoBmff('qt  ', 0, ['qt  ']), found: 'video/quicktime' },
    { name: 'audio/mpeg declared, AAC stored', declared: 'audio/mpeg', file: adts, found: 'audio/aac' },
    { name: 'audio/amr declared, MP3 stored', declared: 'audio/amr', file: mpegFrames, found: 'audio/mpeg' },
  ])('$name', async ({ declared, file, found }) => {
    await expect(judge(declared, file)).resolves.toEqual(mismatch(`declared ${declared}, found ${found}`));
  });

  it('rejects a type that cannot be declared', async () => {
    await expect(judge('application/x-msdownload', Buffer.from('MZ'))).resolves.toEqual(
      mismatch('declared application/x-msdownload, which is not an upload type'),
    );
  });
});

describe('judgeUpload rejects a stored size other than the declared one', () => {
  it.each([
    { name: 'larger', declaredSize: 1000, storedSize: 1001 },
    { name: 'smaller', declaredSize: 1000, storedSize: 999 },
    { name: 'empty', declaredSize: 1000, storedSize: 0 },
  ])('$name', async ({ declaredSize, storedSize }) => {
    const file = png();
    await expect(judgeUpload({ declaredMimeType: 'image/png', declaredSize, storedSize, head: file.subarray(0, storedSize) })).resolves.toEqual({
      ok: false,
      reason: 'size_mismatch',
      detail: `declared ${declaredSize} bytes, stored ${storedSize} bytes`,
    });
  });
});
