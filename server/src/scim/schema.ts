import SCIMMY from "scimmy";

const { Attribute, SchemaDefinition, Schema } = SCIMMY.Types;

export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const LIST_RESPONSE =
  "urn:ietf:params:scim:api:messages:2.0:ListResponse";
export const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

/**
 * The core User schema (RFC 7643 §4.1) cut down to what an LMS user holds (SPEC §16): userName is
 * the e-mail, name and displayName are the one `name`, active is the status, externalId is
 * external_id (scimmy adds id, externalId and meta to every definition). Declared with scimmy's
 * own types so that /Schemas describes it, and PATCH and bodies are checked against it by the
 * library. An attribute that is not here is not kept: accepted and ignored (scim/patch-paths.ts).
 */
export const userDefinition = new SchemaDefinition(
  "User",
  USER_SCHEMA,
  "User Account: the attributes listed are those the LMS keeps; any other (password, phoneNumbers, addresses, preferredLanguage, title, extensions) is accepted and ignored by POST, PUT and PATCH.",
  [
    new Attribute("string", "userName", {
      required: true,
      uniqueness: "server",
      description:
        "The user's e-mail address, unique within the organization; matched ignoring case. REQUIRED.",
    }),
    new Attribute(
      "complex",
      "name",
      {
        description:
          "The user's name: the LMS keeps one name, formatted; given and family name are read from it.",
      },
      [
        new Attribute("string", "formatted", {
          description:
            "The full name, 1 to 200 characters (the LMS user's name).",
        }),
        new Attribute("string", "familyName", {
          description: "The last word of the name.",
        }),
        new Attribute("string", "givenName", {
          description: "The name without its last word.",
        }),
      ],
    ),
    new Attribute("string", "displayName", {
      description: "The name, as name.formatted.",
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
        description: "The one e-mail address, the same as userName.",
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
);

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
  active?: boolean;
  emails?: Array<{ value?: string; type?: string; primary?: boolean }>;
  meta?: Record<string, unknown>;
};
