// The answers of the account routes (team, second factors, sessions, audit log).
import { TimestampSchema } from "@gateway/contracts/payment-resource";
import { z } from "zod";
import { AUDIT_ACTIONS } from "../auth/audit.js";
import { ROLES } from "../auth/permissions.js";
import { listOf, MerchantSchema, TokenSchema } from "./resources.js";

export const RoleSchema = z.enum(ROLES).meta({ id: "Role" });

export const TwoFactorChallengeSchema = z
  .object({
    two_factor_required: z.literal(true),
    login_token: z.string().meta({ description: "Spent by the second step; valid 5 minutes." }),
    methods: z.array(z.enum(["totp", "passkey", "recovery_code"])),
  })
  .meta({ id: "TwoFactorChallenge" });

export const LoginAnswerSchema = z.union([TokenSchema, TwoFactorChallengeSchema]).meta({ id: "LoginAnswer" });

export const TotpSetupSchema = z
  .object({
    secret: z.string().meta({ description: "Base32; shown until the app is enabled." }),
    otpauth_url: z.string(),
    qr_modules: z
      .array(z.string())
      .meta({ description: 'The otpauth URL as a QR code: one string per row, "1" a dark module.' }),
  })
  .meta({ id: "TotpSetup" });

export const RecoveryCodesSchema = z
  .object({ recovery_codes: z.array(z.string()).meta({ description: "Ten single-use codes, shown once." }) })
  .meta({ id: "RecoveryCodes" });

export const SecondFactorsSchema = z
  .object({ object: z.literal("second_factors"), totp: z.boolean(), passkeys: z.number().int() })
  .meta({ id: "SecondFactors" });

export const MemberSchema = z
  .object({
    id: z.string(),
    object: z.literal("member"),
    email: z.string(),
    role: RoleSchema,
    two_factor: z.boolean(),
    created_at: TimestampSchema,
  })
  .meta({ id: "Member" });

export const InvitationSchema = z
  .object({
    object: z.literal("invitation"),
    email: z.string(),
    role: RoleSchema,
    created_at: TimestampSchema,
  })
  .meta({ id: "Invitation" });

export const TeamSchema = z
  .object({
    object: z.literal("team"),
    require_2fa: z.boolean(),
    members: z.array(MemberSchema),
    invitations: z.array(InvitationSchema),
  })
  .meta({ id: "Team" });

export const MeSchema = z
  .object({
    ...MerchantSchema.shape,
    member: z.object({
      id: z.string(),
      email: z.string(),
      role: RoleSchema,
      totp: z.boolean(),
      passkeys: z.number().int(),
      second_factor_setup_required: z.boolean(),
    }),
    require_2fa: z.boolean(),
    permissions: z
      .array(z.string())
      .meta({ description: 'The dashboard routes this role may call ("POST /payouts").' }),
  })
  .meta({ id: "Me" });

export const SessionSchema = z
  .object({
    id: z.string(),
    object: z.literal("session"),
    created_at: TimestampSchema,
    last_seen_at: TimestampSchema,
    ip: z.string(),
    user_agent: z.string(),
    current: z.boolean(),
  })
  .meta({ id: "Session" });
export const SessionListSchema = listOf(SessionSchema, "SessionList");

export const AuditEntrySchema = z
  .object({
    id: z.string(),
    object: z.literal("audit_entry"),
    action: z.enum(AUDIT_ACTIONS),
    actor: z.string(),
    ip: z.string(),
    user_agent: z.string(),
    created_at: TimestampSchema,
    details: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "AuditEntry" });
export const AuditLogSchema = listOf(AuditEntrySchema, "AuditLog");

export const PasskeySchema = z
  .object({
    id: z.string(),
    object: z.literal("passkey"),
    name: z.string(),
    created_at: TimestampSchema,
    last_used_at: TimestampSchema.nullable(),
  })
  .meta({ id: "Passkey" });
export const PasskeyListSchema = listOf(PasskeySchema, "PasskeyList");
export const RegisteredPasskeySchema = z
  .object({
    ...PasskeySchema.shape,
    recovery_codes: z
      .array(z.string())
      .nullable()
      .meta({ description: "Ten recovery codes, shown once, when the member had none; otherwise null." }),
  })
  .meta({ id: "RegisteredPasskey" });

export const OkSchema = z
  .object({ object: z.string(), deleted: z.literal(true), id: z.string() })
  .meta({ id: "RemovedObject" });
