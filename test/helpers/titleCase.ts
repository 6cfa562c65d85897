/**
 * A run of dash-joined Title-Case words of about `chars` characters: the shape that made the
 * server's entity analysis quadratic (every word a name candidate), for the analysis attacks.
 */
export const TITLE_WORDS = ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo', 'Foxtrot', 'Golf', 'Hotel', 'India', 'Juliet'];

export const titleCase = (chars: number): string => {
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < chars; i += 1) {
    const word = `${TITLE_WORDS[i % TITLE_WORDS.length] ?? 'Kilo'}${String.fromCharCode(97 + (i % 26))}`;
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join('-');
};
