import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBase64, IsIn, IsString, Length, ValidateIf, ValidateNested } from 'class-validator';
import { CHAT_MESSAGE_TYPES, type ChatMessageType } from '#platform/contracts';

/** Bodies of the admin API's tester and simulator calls (architecture section 8). */
export class InviteTesterDto {
  @IsString() @Length(1, 64) userId!: string;
}

export class SimMediaDto {
  @IsString() @Length(1, 255) fileName!: string;
  @IsString() @Length(1, 255) mimeType!: string;
  @IsString() @IsBase64() base64!: string;
}

export class SimSendMessageDto {
  @IsString() @Length(1, 64) appId!: string;
  @IsIn(CHAT_MESSAGE_TYPES) type!: ChatMessageType;
  /** Required for text; the caption of a media message otherwise. */
  @ValidateIf((o) => o.type === 'text' || (o.text !== undefined && o.text !== null)) @IsString() @Length(1, 4096) text?: string | null;
  @ValidateIf((o) => o.media !== undefined) @IsArray() @ArrayMaxSize(10) @ValidateNested({ each: true }) @Type(() => SimMediaDto) media?: SimMediaDto[];
  /** An app message (`msg_…`) the user replies to. */
  @ValidateIf((o) => o.replyTo !== undefined && o.replyTo !== null) @IsString() @Length(1, 64) replyTo?: string | null;
}

export class SimReceiptDto {
  @IsString() @Length(1, 64) messageId!: string;
  @IsIn(['delivered', 'read']) status!: 'delivered' | 'read';
}
