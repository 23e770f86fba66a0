/** What the memory tests' user says and the scripted model keeps (see memory-child.ts). */
export const MEMORY_USER = 'alice';
/** Said in session s1; the model notes it in the working memory and saves `FACT`. */
export const TOLD = 'I am allergic to peanuts.';
export const FACT = 'Alice is allergic to peanuts.';
/** The working memory's line for `TOLD`. */
export const ALLERGY_NOTE = 'Allergy: peanuts';
/** Asked in session s2, in a new process: shares a word with `TOLD` and `FACT`. */
export const ASKED = 'What am I allergic to?';
/** What the model appends to the working memory in session w1 (the crash test's update). */
export const NOTE = 'Likes green tea';
