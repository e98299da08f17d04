/**
 * A service's status words in sentence case ("Provisioning Failed, try again." → "Provisioning failed, try
 * again."): the first letter up, every later Capitalised word down; acronyms and mixed-case names (API, CrewAI)
 * stay as written. The words are the service's; only their case changes.
 */
export function sentenceCase(words: string): string {
  let first = true;
  return words.replace(/\p{L}[\p{L}\p{M}'’]*/gu, (word) => {
    if (first) {
      first = false;
      return word.charAt(0).toUpperCase() + word.slice(1);
    }
    return /^\p{Lu}[\p{Ll}\p{M}'’]+$/u.test(word) ? word.toLowerCase() : word;
  });
}
