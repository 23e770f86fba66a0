import { z } from 'zod';

/** Base64 text (standard alphabet, optional padding): what `data` fields hold. */
const Base64 = z
  .string()
  .min(1)
  .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64 (standard alphabet, no data: prefix)');

/** A media type such as `image/png` or `application/pdf`. */
const MediaType = z.string().regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a media type like image/png');

const Detail = z.enum(['auto', 'low', 'high']).optional();

/** Text inside a user message with several parts. */
export const TextPart = z.lazy(() => z.strictObject({ type: z.literal('text'), text: z.string() }));

/** An image the model reads from a URL (`https:` or a `data:` URL). */
export const ImageUrlPart = z.lazy(() =>
  z.strictObject({
    type: z.literal('image'),
    url: z.string().regex(/^(https?:|data:)/, 'must be an https:, http: or data: URL'),
    detail: Detail,
  }),
);

/** An image given inline as base64 bytes with its media type. */
export const ImageDataPart = z.lazy(() =>
  z.strictObject({
    type: z.literal('image'),
    data: Base64,
    mediaType: MediaType.refine((t) => t.startsWith('image/'), 'must be an image/* media type'),
    detail: Detail,
  }),
);

/** A file (e.g. a PDF) given inline as base64 bytes, with its media type and name. */
export const FileDataPart = z.lazy(() =>
  z.strictObject({
    type: z.literal('file'),
    data: Base64,
    mediaType: MediaType,
    filename: z.string().min(1),
  }),
);

/** A file the provider already holds (uploaded through its files API), by id. */
export const FileIdPart = z.lazy(() =>
  z.strictObject({
    type: z.literal('file'),
    fileId: z.string().min(1),
    filename: z.string().min(1).optional(),
  }),
);

/**
 * One part of a user message: text, an image (URL or base64 data) or a file (base64 data or a
 * provider file id). Exactly one source per part: an image with both `url` and `data` is refused.
 */
export const UserContentPart = z.lazy(() =>
  z.union([TextPart, ImageUrlPart, ImageDataPart, FileDataPart, FileIdPart]),
);

export type TextPart = z.infer<typeof TextPart>;
export type ImageUrlPart = z.infer<typeof ImageUrlPart>;
export type ImageDataPart = z.infer<typeof ImageDataPart>;
export type FileDataPart = z.infer<typeof FileDataPart>;
export type FileIdPart = z.infer<typeof FileIdPart>;
export type UserContentPart = z.infer<typeof UserContentPart>;
