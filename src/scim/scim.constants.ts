/** Schema URIs and limits of the SCIM surface (RFC 7643 §8.7, RFC 7644 §3; docs/product-rules.md, "SCIM"). */
export const SCIM_MEDIA_TYPE = 'application/scim+json';
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const LIST_RESPONSE_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const SEARCH_REQUEST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:SearchRequest';
export const PATCH_OP_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const BULK_REQUEST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:BulkRequest';
export const BULK_RESPONSE_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:BulkResponse';
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
/** docs/product-rules.md, "OpenID Connect and OAuth": the vendor error detail, carrying a stable error id and the untranslated message. */
export const ERROR_DETAIL_SCHEMA = 'urn:ietf:params:scim:api:portcullis:messages:2.0:ErrorDetail';
export const SPC_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
export const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';
export const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';

/** Limits of the SCIM surface (docs/product-rules.md, "SCIM"). */
export const MAX_PAGE_SIZE = 100;
export const MAX_BULK_OPERATIONS = 100;
export const MAX_BULK_PAYLOAD_BYTES = 1_000_000;
/**
 * Issue 33 item 13 (docs/product-rules.md, "SCIM"): operations per PATCH request, and values per
 * multi-valued attribute of a User (e-mails, phone numbers, addresses, …). Together they bound a PATCH's
 * work to about a hundred thousand value comparisons. Entra ID and Okta send a handful of operations and a
 * few values per attribute; a group's members are not such an attribute (they are rows, not values).
 */
export const MAX_PATCH_OPERATIONS = 1000;
export const MAX_ATTRIBUTE_VALUES = 100;
