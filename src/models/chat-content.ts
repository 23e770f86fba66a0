import type { ChatCompletionContentPart } from 'openai/resources/chat/completions';
import type { UserContentPart } from '../items/content-part.js';

/** A base64 payload as the `data:` URL Chat Completions takes for inline images and files. */
const dataUrl = (mediaType: string, data: string): string => `data:${mediaType};base64,${data}`;

/**
 * A user message's parts in Chat Completions form: `text`, `image_url` (a URL, or base64 data
 * as a `data:` URL) and `file` (`file_data` as a `data:` URL with its `filename`, or `file_id`).
 */
export function toChatContentParts(parts: readonly UserContentPart[]): ChatCompletionContentPart[] {
  return parts.map((part): ChatCompletionContentPart => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    if (part.type === 'image') {
      const url = 'url' in part ? part.url : dataUrl(part.mediaType, part.data);
      return {
        type: 'image_url',
        image_url: part.detail === undefined ? { url } : { url, detail: part.detail },
      };
    }
    if ('fileId' in part) {
      return {
        type: 'file',
        file: {
          file_id: part.fileId,
          ...(part.filename === undefined ? {} : { filename: part.filename }),
        },
      };
    }
    return {
      type: 'file',
      file: { file_data: dataUrl(part.mediaType, part.data), filename: part.filename },
    };
  });
}
