import { Schema } from "effect"

export const ProjectId = Schema.UUID.pipe(Schema.brand("ProjectId"))
export type ProjectId = typeof ProjectId.Type

export const PostId = Schema.UUID.pipe(Schema.brand("PostId"))
export type PostId = typeof PostId.Type

export const DeliveryId = Schema.UUID.pipe(Schema.brand("DeliveryId"))
export type DeliveryId = typeof DeliveryId.Type

export const AccountId = Schema.UUID.pipe(Schema.brand("AccountId"))
export type AccountId = typeof AccountId.Type

export const MediaId = Schema.UUID.pipe(Schema.brand("MediaId"))
export type MediaId = typeof MediaId.Type

export const ApiKeyId = Schema.UUID.pipe(Schema.brand("ApiKeyId"))
export type ApiKeyId = typeof ApiKeyId.Type

export const EventId = Schema.UUID.pipe(Schema.brand("EventId"))
export type EventId = typeof EventId.Type

export const WebhookEndpointId = Schema.UUID.pipe(Schema.brand("WebhookEndpointId"))
export type WebhookEndpointId = typeof WebhookEndpointId.Type

export const ApprovalChannelId = Schema.UUID.pipe(Schema.brand("ApprovalChannelId"))
export type ApprovalChannelId = typeof ApprovalChannelId.Type

export const ApprovalMessageId = Schema.UUID.pipe(Schema.brand("ApprovalMessageId"))
export type ApprovalMessageId = typeof ApprovalMessageId.Type

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const isUuid = (value: string): boolean => uuidPattern.test(value)
