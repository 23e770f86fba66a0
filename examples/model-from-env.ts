/**
 * The model the examples use: OpenAI when OPENAI_API_KEY is set (OPENAI_BASE_URL and
 * AGENTSTATE_MODEL are honoured, so any OpenAI-compatible server works), else the example's
 * offline one. The key stays in this process.
 */
import { OpenAIModel, type Model } from '../src/index.js';

export function modelFromEnv(offline: () => Model): Model {
  const apiKey = process.env.OPENAI_API_KEY;
  if (apiKey) {
    const model = process.env.AGENTSTATE_MODEL ?? 'gpt-4o-mini';
    console.log(
      `Using OpenAI model ${model}${process.env.OPENAI_BASE_URL ? ` at ${process.env.OPENAI_BASE_URL}` : ''}.`,
    );
    return new OpenAIModel({ model, apiKey, baseURL: process.env.OPENAI_BASE_URL });
  }
  console.log('No OPENAI_API_KEY set: using the offline scripted model.');
  return offline();
}
