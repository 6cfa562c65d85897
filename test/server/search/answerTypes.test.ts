import { describe, expect, it } from 'vitest';
import { CLOCK_TIME, DATE, DURATION, FREQUENCY, LIMIT, MONEY, NAME, PERCENTAGE, PLACE, REASON, SIZE, VERSION, asksYesOrNo, questionAnswerTypes, valueAnswerTypes } from '../../../src/server/search/answerTypes.js';

describe('questionAnswerTypes', () => {
  it('reads the question forms that name the shape of their answer', () => {
    expect(questionAnswerTypes('How long are player messages retained?')).toBe(DURATION);
    expect(questionAnswerTypes('How often do the probes phone home?')).toBe(FREQUENCY);
    expect(questionAnswerTypes('How frequently are features loaded?')).toBe(FREQUENCY);
    expect(questionAnswerTypes('At what time does the nightly run start?')).toBe(CLOCK_TIME);
    expect(questionAnswerTypes('Is there a cap on how big the gateway binary can get?')).toBe(SIZE);
    expect(questionAnswerTypes('What percentage of the fleet gets the first wave?')).toBe(PERCENTAGE);
    expect(questionAnswerTypes('Which version of the RTOS are we on, and how often do we upgrade?')).toBe(VERSION | FREQUENCY);
    expect(questionAnswerTypes("Where's the static analysis config for the Go backends?")).toBe(PLACE);
    expect(questionAnswerTypes('Why do iOS builds run on a third-party service?')).toBe(REASON);
  });

  it('reads a question that opens with "when", or asks what day, as asking for a day', () => {
    expect(questionAnswerTypes('When did Caroline go to the support group?')).toBe(DATE);
    expect(questionAnswerTypes('when is priya moving to portugal')).toBe(DATE);
    expect(questionAnswerTypes("whens the party, when's kick off, when r u back")).toBe(DATE);
    expect(questionAnswerTypes('What day is the cardiology appointment?')).toBe(DATE);
    expect(questionAnswerTypes('When and where was the contract signed?')).toBe(DATE | PLACE);
  });

  it('reads "how much", a price, a cost, a fee or a quote as asking for money; "how much memory" is a size', () => {
    expect(questionAnswerTypes('How much did each flight cost?')).toBe(MONEY);
    expect(questionAnswerTypes('how much deposit did we put down')).toBe(MONEY);
    expect(questionAnswerTypes('bellwood price per person')).toBe(MONEY);
    expect(questionAnswerTypes("What's the fee for the late cancellation?")).toBe(MONEY);
    expect(questionAnswerTypes('How much memory does the gateway use?')).toBe(SIZE);
    expect(questionAnswerTypes('How much time is left?')).toBe(0);
  });

  it('reads "what is the name of", "what is she called" and an opening "who" as asking for a name', () => {
    expect(questionAnswerTypes('What is the name of the man they dealt with at the cricket club?')).toBe(NAME);
    expect(questionAnswerTypes("and what's she called")).toBe(NAME);
    expect(questionAnswerTypes('Who took Ewan to lunch on his first day?')).toBe(NAME);
    expect(questionAnswerTypes('whos our contact there')).toBe(NAME);
    expect(questionAnswerTypes('What did the man who called say?')).toBe(0);
  });

  it('reads a maximum or a minimum asked for as a bound, unless another shape says which value is bounded', () => {
    expect(questionAnswerTypes('what max number of guests did we settle on')).toBe(LIMIT);
    expect(questionAnswerTypes('when did we agree the 55 limit')).toBe(DATE | LIMIT);
    expect(questionAnswerTypes("What's the maximum line length?")).toBe(LIMIT);
    expect(questionAnswerTypes('how many can we invite at most')).toBe(LIMIT);
    // A size, a price, a duration bounded: that shape is what the answer shows.
    expect(questionAnswerTypes('Is there a cap on how big the gateway binary can get?')).toBe(SIZE);
    expect(questionAnswerTypes("what's the max price for the venue")).toBe(MONEY);
    // "Max" written as a name is LoCoMo's dog, not a maximum.
    expect(questionAnswerTypes('When did John adopt Max?')).toBe(DATE);
  });

  it('asks for nothing when the question does not say: a "when" inside it and "how many" (any number) included', () => {
    expect(questionAnswerTypes('What did Ewan do when the flight was cancelled?')).toBe(0);
    expect(questionAnswerTypes('When I run the tests on Fridays they time out')).toBe(0);
    expect(questionAnswerTypes('How many people came to the party?')).toBe(0);
    expect(questionAnswerTypes('Which bundler do we use?')).toBe(0);
  });
});

describe('asksYesOrNo', () => {
  it('reads a question that opens with an auxiliary verb as asking for a yes or a no', () => {
    for (const q of ['is neev ok with tom moving in', 'did nia like the poem', 'Was the flight on time?', 'can we still get a refund', 'r u coming']) expect(asksYesOrNo(q), q).toBe(true);
    for (const q of ['when is tom moving in', 'who is graham', 'what did she say', 'how much was it', 'is', 'the venue is booked']) expect(asksYesOrNo(q), q).toBe(false);
  });
});

describe('valueAnswerTypes', () => {
  it('finds durations, frequencies, sizes, clock times, percentages and versions', () => {
    expect(valueAnswerTypes('Tokens expire after 15 minutes.')).toBe(DURATION);
    expect(valueAnswerTypes('Raw readings are kept for 400 days.')).toBe(DURATION);
    expect(valueAnswerTypes('The lease lasts two weeks.')).toBe(DURATION);
    expect(valueAnswerTypes('The cache TTL is 30s.')).toBe(DURATION);
    // A duration that names which kind of time it counts.
    expect(valueAnswerTypes('Aisha: 5-7 working days 😭')).toBe(DURATION);
    expect(valueAnswerTypes('Refunds settle in 3 business days.')).toBe(DURATION);
    expect(valueAnswerTypes('ok two more weeks then')).toBe(DURATION);
    expect(valueAnswerTypes('working late again, more meetings')).toBe(0);
    // The hour alone, where the words around it say it is one.
    expect(valueAnswerTypes('tasting is next sat at 2', CLOCK_TIME)).toBe(CLOCK_TIME);
    expect(valueAnswerTypes('carl came at half 8', CLOCK_TIME)).toBe(CLOCK_TIME);
    expect(valueAnswerTypes('itll be done by 3', CLOCK_TIME)).toBe(CLOCK_TIME);
    expect(valueAnswerTypes('we are at 10 people', CLOCK_TIME)).toBe(0);
    expect(valueAnswerTypes('pay by 3rd may', CLOCK_TIME)).toBe(0);
    expect(valueAnswerTypes('down at 20% battery', CLOCK_TIME)).toBe(0);
    // A name, as English introduces one.
    expect(valueAnswerTypes('a guy called malcolm, he runs the bar', NAME)).toBe(NAME);
    expect(valueAnswerTypes('the lady is called marguerite', NAME)).toBe(NAME);
    expect(valueAnswerTypes('his name is jonas', NAME)).toBe(NAME);
    expect(valueAnswerTypes('jonas took me for lunch', NAME)).toBe(0);
    // An amount of money: a currency sign, a currency's name, chat's "quid", "grand", "5k", "21pp".
    expect(valueAnswerTypes('cake 85 + painting £120 (me)', MONEY)).toBe(MONEY);
    expect(valueAnswerTypes('he can do 21pp w pulled pork', MONEY)).toBe(MONEY);
    expect(valueAnswerTypes('isnt worth 900 quid', MONEY)).toBe(MONEY);
    expect(valueAnswerTypes('budget is 8k', MONEY)).toBe(MONEY);
    expect(valueAnswerTypes('Tickets were $45 each.', MONEY)).toBe(MONEY);
    expect(valueAnswerTypes('guest list is at 62', MONEY)).toBe(0);
    // Chat leaves the currency out where a verb of paying or a unit price names it.
    expect(valueAnswerTypes('paid the 150 deposit today', MONEY)).toBe(MONEY);
    expect(valueAnswerTypes('the quote was 38 a head', MONEY)).toBe(MONEY);
    expect(valueAnswerTypes('rent is 450 a month each', MONEY)).toBe(MONEY);
    expect(valueAnswerTypes('we kept 3 chairs for the hall', MONEY)).toBe(0);
    // A span up to now, named by where it starts ("how long has she been seeing him?").
    expect(valueAnswerTypes('since new year apparently', DURATION)).toBe(DURATION);
    expect(valueAnswerTypes('been vegan since march', DURATION)).toBe(DURATION);
    expect(valueAnswerTypes('together since 2019', DURATION)).toBe(DURATION);
    expect(valueAnswerTypes('since u asked, the blue one', DURATION)).toBe(0);
    expect(valueAnswerTypes('since the van broke we walk', DURATION)).toBe(0);
    expect(valueAnswerTypes('Sprint planning happens every other Wednesday.')).toBe(FREQUENCY | DATE);
    expect(valueAnswerTypes('Backups run nightly.')).toBe(FREQUENCY);
    expect(valueAnswerTypes('The image must stay under 820 KB.')).toBe(SIZE);
    expect(valueAnswerTypes('The suite starts at 02:00 CET.')).toBe(CLOCK_TIME);
    expect(valueAnswerTypes('The first wave is 1% of the fleet.')).toBe(PERCENTAGE);
    expect(valueAnswerTypes('Zephyr is pinned to 3.7 LTS.')).toBe(VERSION);
    expect(valueAnswerTypes('Android end-to-end tests are Maestro flows in mobile/e2e.')).toBe(PLACE);
    expect(valueAnswerTypes('The runbook is at https://wiki.example.com/payouts.')).toBe(PLACE);
    expect(valueAnswerTypes('Caroline moved here from Sweden.')).toBe(PLACE);
    expect(valueAnswerTypes('Unleash was rejected because nobody wanted to run it.')).toBe(REASON);
    expect(valueAnswerTypes('Dashboards are generated so that edits in the browser do not drift.')).toBe(REASON);
  });

  it('finds a place as chat gives it, by its street in lower case; not a road or a street that is no address', () => {
    expect(valueAnswerTypes('Niamh: also i have new shoes!! went to up n running on the high st', PLACE)).toBe(PLACE);
    expect(valueAnswerTypes('Niamh: my work uses that place on cowly rd? physio first', PLACE)).toBe(PLACE);
    expect(valueAnswerTypes('Leah: we live off gladstone road now', PLACE)).toBe(PLACE);
    expect(valueAnswerTypes('Leah: we were on the road for hours', PLACE)).toBe(0);
    expect(valueAnswerTypes('Leah: in the street it was fine', PLACE)).toBe(0);
    expect(valueAnswerTypes('Leah: see u at st clares', PLACE)).toBe(0);
    expect(valueAnswerTypes('Leah: ill be there on the 1st', PLACE)).toBe(0);
  });

  it('finds a day as chat names it: relative to the line\'s own date, a weekday, a day of the month', () => {
    expect(valueAnswerTypes('Ewan: first day tmrw, 9am at the kreuzberg office', DATE)).toBe(DATE);
    expect(valueAnswerTypes('Nadia: they kept him in monday night and let him home yesterday', DATE)).toBe(DATE);
    expect(valueAnswerTypes('Bea: mine is weds 9am, romantic poetry', DATE)).toBe(DATE);
    expect(valueAnswerTypes('Dee: we move on the 15th', DATE)).toBe(DATE);
    expect(valueAnswerTypes('Kez: c u 2moro', DATE)).toBe(DATE);
    expect(valueAnswerTypes('Rhys: the van comes fri', DATE)).toBe(DATE);
    expect(valueAnswerTypes('Tom: flights are 4 june, back june 9', DATE)).toBe(DATE);
    expect(valueAnswerTypes('I went to the support group a week ago', DATE)).toBe(DATE);
    // No day: a "may" that is a verb, a number that is no day, a word that holds a weekday's letters.
    expect(valueAnswerTypes('you may want to bring a coat, 3 of us are cold', DATE)).toBe(0);
    expect(valueAnswerTypes('the saturation of the photo is off', DATE)).toBe(0);
  });

  it('finds a number said as a bound: after a cap, a limit, "no more than", "up to", or before "max"', () => {
    for (const text of ['Ben: ok proposal. hard cap of 55', 'we capped the list at 55', 'no more than 40 people', 'it holds up to 60', '55 max tbh', 'limit is 120 chars', 'min 3 max 20 replicas']) {
      expect(valueAnswerTypes(text, LIMIT)).toBe(LIMIT);
    }
    for (const text of ['guest list is at 62 rn', 'we need a cap for the sun', 'no limit on the wine lol', 'max said hi']) expect(valueAnswerTypes(text, LIMIT)).toBe(0);
  });

  it('reads only the types asked for when given them', () => {
    expect(valueAnswerTypes('Backups run every six hours.')).toBe(DURATION | FREQUENCY);
    expect(valueAnswerTypes('Backups run every six hours.', FREQUENCY)).toBe(FREQUENCY);
    expect(valueAnswerTypes('Backups run every six hours.', SIZE)).toBe(0);
  });

  it('finds nothing in text that holds no such value', () => {
    expect(valueAnswerTypes('We decided to bundle with rollup.')).toBe(0);
    expect(valueAnswerTypes('The deploy log lives in CI.')).toBe(0);
    expect(valueAnswerTypes('PostgreSQL on the managed instance')).toBe(0);
    expect(valueAnswerTypes('Nothing changed since the migration.')).toBe(0);
  });
});
