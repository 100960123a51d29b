/**
 * The scorer against lm-eval's gsm8k filters and exact_match (lm_eval/tasks/gsm8k/gsm8k.yaml 3.0,
 * lm_eval/filters/extraction.py RegexFilter): each expected value below is what those regexes and
 * regexes_to_ignore give, worked by hand from the yaml.
 */
import { describe, expect, it } from 'vitest';
import { extractFlexible, extractStrict, normalizeAnswer, referenceOf, scoreOutput } from '../../harness/measure/accuracy/score.ts';

describe('strict-match: the first "#### <number>"', () => {
  it('takes the number after the first ####, and nothing else', () => {
    expect(extractStrict('9 * 2 = 18 dollars.\n#### 18')).toBe('18');
    expect(extractStrict('#### 5\n#### 6')).toBe('5');
    expect(extractStrict('#### -3')).toBe('-3');
    expect(extractStrict('#### 1,450,000')).toBe('1,450,000');
    expect(extractStrict('The answer is 18.')).toBe('[invalid]');
    // "####" needs its space and a number right after.
    expect(extractStrict('####18')).toBe('[invalid]');
    expect(extractStrict('#### $18')).toBe('[invalid]');
  });
});

describe('flexible-extract: the last number-like run', () => {
  it('takes the last match, of the group that matched', () => {
    expect(extractFlexible('First 12, then 18 apples.')).toBe('18');
    expect(extractFlexible('The answer is 18.')).toBe('18.');
    expect(extractFlexible('She pays $1,450,000 in all')).toBe('$1,450,000');
    expect(extractFlexible('it is 7')).toBe('7');
    expect(extractFlexible('a drop of -5 degrees')).toBe('-5');
    expect(extractFlexible('x = 2.5')).toBe('2.5');
    expect(extractFlexible('no digits at all')).toBe('[invalid]');
  });

  it('is fooled by a number after the answer, as lm-eval is', () => {
    expect(extractFlexible('So 24 eggs, which is 2 dozen.')).toBe('2');
  });
});

describe('normalization and references', () => {
  it('drops commas, $, everything up to "#### " and one trailing period', () => {
    expect(normalizeAnswer('$1,450,000.')).toBe('1450000');
    expect(normalizeAnswer('18.')).toBe('18');
    expect(normalizeAnswer('2.50')).toBe('2.50');
    expect(normalizeAnswer('[invalid]')).toBe('[invalid]');
  });

  it("a dataset answer's reference is its final number, commas removed", () => {
    expect(referenceOf('Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day.\nShe makes 9 * 2 = $<<9*2=18>>18 every day.\n#### 18')).toBe('18');
    expect(referenceOf('So the total is 2,000+125=<<2000+125=2125>>2,125\n#### 2,125')).toBe('2125');
  });
});

describe('scoreOutput', () => {
  it('scores both filters against the reference', () => {
    expect(scoreOutput(' He makes 9 * 2 = $18 every day.\n#### 18', '18')).toEqual({ extracted: { strict: '18', flexible: '18' }, correct: { strict: true, flexible: true } });
    expect(scoreOutput('The answer is 18.', '18')).toEqual({ extracted: { strict: '[invalid]', flexible: '18.' }, correct: { strict: false, flexible: true } });
    expect(scoreOutput('That makes $2,125 in total.', '2125').correct).toEqual({ strict: false, flexible: true });
    expect(scoreOutput('#### -5', '-5').correct).toEqual({ strict: true, flexible: true });
    // Exact match on the text, not on the value: lm-eval counts 18.00 wrong against 18.
    expect(scoreOutput('#### 18.00', '18').correct).toEqual({ strict: false, flexible: false });
    expect(scoreOutput('#### 19', '18').correct).toEqual({ strict: false, flexible: false });
    expect(scoreOutput('', '18').correct).toEqual({ strict: false, flexible: false });
  });
});
