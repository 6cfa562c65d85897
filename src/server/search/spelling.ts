/**
 * British spellings to American before stemming, so "authorisation" meets "authorization" and
 * "colour" meets "color": a team's notes and its questions are seldom written by one hand.
 * Only regular patterns whose words are known to be variants: -isation, -ise (without the
 * words where -ise is the only spelling: "promise", "exercise", "surprise"), -yse, the -our
 * words and the -tre words. Porter then gives both spellings one stem.
 */

// Words ending in -ise that have no -ize spelling (with their derived forms they cover).
const ONLY_ISE: ReadonlySet<string> = new Set(
  (
    'rise arise promise exercise advise surprise expertise enterprise compromise premise franchise merchandise supervise ' +
    'televise advertise improvise revise devise excise concise precise disguise despise chastise circumcise incise paradise ' +
    'treatise anise valise reprise demise apprise comprise surmise prise vise mise guise sunrise uprise'
  ).split(' '),
);
const ISE_FORM = /^(.{3,})is(e|es|ed|ing|er|ers|ation|ations)$/;
const YSE_FORM = /^(anal|paral|catal|dial|electrol|hydrol)ys(e|es|ed|ing|er|ers)$/;
const OUR_WORDS = /^(colour|favour|behaviour|honour|labour|neighbour|flavour|humour|rumour|harbour|savour|vapour|armour|endeavour|odour|rigour|vigour|parlour|splendour|tumour|valour|clamour|candour|fervour|saviour)/;
const TRE_WORDS = /^(centre|theatre|metre|kilometre|centimetre|millimetre|litre|fibre|calibre|spectre|sombre|meagre|lustre)(s?)$/;

/** The American spelling of a lower-case word, or the word itself. */
export const americanSpelling = (word: string): string => {
  const ise = ISE_FORM.exec(word);
  if (ise !== null) {
    const [, stem = '', suffix = ''] = ise;
    const base = `${stem}ise`;
    // "noise", "praise", "cruise", "likewise": -oise, -aise, -uise and -wise are not the suffix.
    if (!ONLY_ISE.has(base) && !/(o|a|u|w)$/.test(stem)) return `${stem}iz${suffix}`;
    return word;
  }
  const yse = YSE_FORM.exec(word);
  if (yse !== null) {
    const [, stem = '', suffix = ''] = yse;
    return `${stem}yz${suffix}`;
  }
  const our = OUR_WORDS.exec(word);
  if (our !== null) {
    const [, british = ''] = our;
    return `${british.slice(0, -3)}or${word.slice(british.length)}`;
  }
  const tre = TRE_WORDS.exec(word);
  if (tre !== null) {
    const [, british = '', plural = ''] = tre;
    return `${british.slice(0, -2)}er${plural}`;
  }
  return word;
};
