import {
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsEmail,
  IsIn,
  IsInt,
  IsISO8601,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { SCOPES, USER_STATUSES, VERIFICATION_STATUSES } from '#platform/contracts';

/** Bodies of the admin API (architecture section 8). */
export class CreateOrgDto {
  @IsString() @Length(1, 200) name!: string;
  @IsBoolean() allowsExternalBusinesses!: boolean;
}

export class UpdateOrgDto {
  @IsBoolean() allowsExternalBusinesses!: boolean;
}

export class CreateUserDto {
  @IsString() @Length(1, 64) orgId!: string;
  @IsEmail() @MaxLength(254) email!: string;
  @ValidateIf((o) => o.displayName !== undefined) @IsString() @Length(1, 100) displayName?: string;
}

export class UpdateUserDto {
  @IsIn(USER_STATUSES) status!: (typeof USER_STATUSES)[number];
}

export class CreateAppDto {
  @IsString() @Length(1, 64) orgId!: string;
  /** Public handle of the business profile: lower-case letters, digits, dot, dash, underscore. */
  @IsString()
  @Matches(/^[a-z0-9][a-z0-9_.-]{1,47}$/, { message: 'must be 2-48 characters of a-z, 0-9, _ . - starting with a letter or digit' })
  handle!: string;
  @IsString() @Length(2, 60) displayName!: string;
  @ValidateIf((o) => o.creatorEmail !== undefined && o.creatorEmail !== null) @IsEmail() @MaxLength(254) creatorEmail?: string | null;
}

export class ChangeAppStatusDto {
  @IsIn(['approve', 'suspend', 'reinstate', 'reject']) action!: 'approve' | 'suspend' | 'reinstate' | 'reject';
  @ValidateIf((o) => o.reason !== undefined && o.reason !== null) @IsString() @Length(1, 500) reason?: string | null;
}

export class ChangeVerificationDto {
  @IsIn(VERIFICATION_STATUSES) status!: (typeof VERIFICATION_STATUSES)[number];
}

export class UpdateAppDto {
  @ValidateIf((o) => o.dailyQuota !== undefined) @IsInt() @Min(0) @Max(100_000_000) dailyQuota?: number;
}

export class CreateKeyDto {
  @IsIn(['sandbox', 'live']) environment!: 'sandbox' | 'live';
  @ValidateIf((o) => o.scopes !== undefined) @IsArray() @ArrayNotEmpty() @ArrayUnique() @IsIn(SCOPES, { each: true }) scopes?: (typeof SCOPES)[number][];
  @ValidateIf((o) => o.expiresAt !== undefined && o.expiresAt !== null) @IsISO8601({ strict: true }) expiresAt?: string | null;
}

export class AdvanceClockDto {
  /** Whole seconds, up to ten years. */
  @IsInt() @Min(1) @Max(315_360_000) seconds!: number;
}
