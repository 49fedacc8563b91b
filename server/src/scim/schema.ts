import SCIMMY from "scimmy";

const { Attribute, SchemaDefinition, Schema } = SCIMMY.Types;

export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const LIST_RESPONSE =
  "urn:ietf:params:scim:api:messages:2.0:ListResponse";
export const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

/** RFC 7643 §4.3: the enterprise extension, of which the LMS keeps the profile (SPEC §21). */
export const ENTERPRISE_SCHEMA = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

/** Longest value of any kept string attribute but userName's and the name's own rules. */
const MAX = "at most 255 characters";

/**
 * The enterprise extension cut down to what the LMS keeps, each shown in /api/v1 as the user's
 * `profile`. `title` is the core schema's; it is also read here because some identity providers
 * send it inside the extension, and reads back in both places.
 */
export const enterpriseDefinition = new SchemaDefinition(
  "EnterpriseUser",
  ENTERPRISE_SCHEMA,
  "Enterprise User: the LMS keeps employeeNumber, department, manager.value (and title, as the core attribute) as the user's profile; costCenter, organization, division and manager.displayName are accepted and ignored.",
  [
    new Attribute("string", "employeeNumber", {
      description: `The person's number in the organization (profile.employee_number), ${MAX}.`,
    }),
    new Attribute("string", "department", {
      description: `The person's department (profile.department; /api/v1/users?department= finds it ignoring case), ${MAX}.`,
    }),
    new Attribute("string", "title", {
      description: "The same as the core title (profile.title): kept once, read back in both places.",
    }),
    new Attribute(
      "complex",
      "manager",
      { description: "The person's manager: only value is kept (profile.manager_id)." },
      [
        new Attribute("string", "value", {
          description: `The manager's id as the identity provider sends it (usually the manager's SCIM id), ${MAX}.`,
        }),
      ],
    ),
  ],
);

/**
 * The core User schema (RFC 7643 §4.1) cut down to what an LMS user holds (SPEC §16, §21):
 * userName is the username (unique, ignoring case; needs not be an e-mail), the primary or work
 * e-mail is the user's e-mail, the name's parts and displayName read back as written, title and
 * the enterprise extension are the profile, active is the status, externalId is external_id
 * (scimmy adds id, externalId and meta to every definition). Declared with scimmy's own types so
 * that /Schemas describes it, and PATCH and bodies are checked against it by the library. An
 * attribute that is not here is not kept: accepted and ignored (scim/patch-paths.ts).
 */
export const userDefinition = new SchemaDefinition(
  "User",
  USER_SCHEMA,
  "User Account: the attributes listed are those the LMS keeps, each read back as written; any other (password, nickName, phoneNumbers, addresses, preferredLanguage, locale, timezone, userType, photos, ims, roles, entitlements, x509Certificates, further e-mails) is accepted and ignored by POST, PUT and PATCH.",
  [
    new Attribute("string", "userName", {
      required: true,
      uniqueness: "server",
      description:
        "The user's username (/api/v1 `username`), unique within the organization; matched ignoring case; needs not be an e-mail. 1 to 255 characters. REQUIRED.",
    }),
    new Attribute(
      "complex",
      "name",
      {
        description:
          "The user's name, each part kept as sent. The LMS user's one `name` is name.formatted, else givenName + familyName, else displayName (whichever a write changed).",
      },
      [
        new Attribute("string", "formatted", {
          description: "The full name; the LMS user's name is 1 to 200 characters.",
        }),
        new Attribute("string", "familyName", {
          description: `The family name, as sent, ${MAX}.`,
        }),
        new Attribute("string", "givenName", {
          description: `The given name, as sent, ${MAX}.`,
        }),
      ],
    ),
    new Attribute("string", "displayName", {
      description: `The name to display, as sent, ${MAX}.`,
    }),
    new Attribute("string", "title", {
      description: `The person's job title (profile.title), ${MAX}.`,
    }),
    new Attribute("boolean", "active", {
      description:
        "false when the user is deactivated (cannot sign in or be enrolled; active enrollments were withdrawn).",
    }),
    new Attribute(
      "complex",
      "emails",
      {
        multiValued: true,
        description:
          "The user's e-mail (/api/v1 `email`): of those sent, the primary one, else the work one, else the first; others are ignored. Read back as the one work, primary address.",
      },
      [
        new Attribute("string", "value", {
          description: "The e-mail address.",
        }),
        new Attribute("string", "type", {
          canonicalValues: ["work", "home", "other"],
          description: "Always work.",
        }),
        new Attribute("boolean", "primary", { description: "Always true." }),
      ],
    ),
  ],
).extend(enterpriseDefinition, false);

/** A User resource as scimmy coerces it through the definition above (its documented extension point). */
export class ScimUser extends Schema {
  static get id(): string {
    return userDefinition.id;
  }

  static get definition(): InstanceType<typeof SchemaDefinition> {
    return userDefinition;
  }

  constructor(resource: object, direction: "in" | "out" | "both" = "both") {
    super(resource, direction);
    Object.assign(this, userDefinition.coerce(resource, direction));
  }
}

/** The resource as JSON-ready data: what scimmy coerced, as a plain object. */
export type UserResource = {
  schemas?: string[];
  id?: string;
  externalId?: string;
  userName?: string;
  name?: { formatted?: string; givenName?: string; familyName?: string };
  displayName?: string;
  title?: string;
  active?: boolean;
  emails?: Array<{ value?: string; type?: string; primary?: boolean }>;
  meta?: Record<string, unknown>;
  [ENTERPRISE_SCHEMA]?: Enterprise;
};

/** The enterprise extension's kept attributes. */
export type Enterprise = {
  employeeNumber?: string;
  department?: string;
  title?: string;
  manager?: { value?: string };
};
