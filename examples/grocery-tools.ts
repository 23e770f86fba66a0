/**
 * The grocery price list and its `lookup_price` tool, shared by the quickstart and the chat
 * example.
 */
import { z } from 'zod';
import { tool } from '../src/index.js';

const prices: Record<string, number> = { apple: 0.5, bread: 2.25, coffee: 7.8 };

/** The items on the price list. */
export const groceryItems: readonly string[] = Object.keys(prices);

/** The unit price in USD of `item`; throws for an item not on the list. */
export function priceOf(item: string): number {
  const price = prices[item.toLowerCase()];
  if (price === undefined) throw new Error(`no price for "${item}"`);
  return price;
}

export const lookupPrice = tool({
  name: 'lookup_price',
  description: 'Returns the unit price in USD of a grocery item',
  parameters: z.object({ item: z.string().describe('item name, e.g. "apple"') }),
  execute: ({ item }) => ({ item, price: priceOf(item) }),
});
