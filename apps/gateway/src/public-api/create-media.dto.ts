import { JSONSchema } from 'class-validator-jsonschema';
import { IsDefined, IsInt, IsString, Length, Min } from 'class-validator';

/**
 * POST /media (spec; D10). The MIME type list and the per-kind limits are the media service's
 * rules (415 unsupported_media_type, 413 media_too_large); here only the shape.
 */
@JSONSchema({
  title: 'CreateMediaRequest',
  examples: [{ fileName: 'receipt.png', mimeType: 'image/png', size: 48213 }],
})
export class CreateMediaDto {
  @IsDefined()
  @IsString()
  @Length(1, 255)
  fileName!: string;

  @IsDefined()
  @IsString()
  @Length(1, 255)
  mimeType!: string;

  /** Bytes; the presigned upload signs it as Content-Length. */
  @IsDefined()
  @IsInt()
  @Min(1)
  size!: number;
}
