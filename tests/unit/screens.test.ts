// Screens are named by their furniture: exact by signature, similar at Jaccard >= 0.85, and never by a guess between ties.
import { describe, expect, it } from 'vitest';
import { structuralMarks } from '../../shared/marks.ts';
import { combineParts, jaccard, nameScreen, signatureOf, SIMILAR_THRESHOLD, type KnownScreen } from '../../shared/screens.ts';
import { hashStrings } from '../../shared/hash.ts';
import type { Part } from '../../shared/schema/observation.ts';

const seven = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];

function frame(path: string[], paths: string[]): Part {
  return { part: path, locus: { url: `http://x/${path.join('/')}`, title: '' }, controls: [], paths, text: '' };
}

function screen(label: string, paths: string[]) {
  return { label, paths, signature: signatureOf(paths) };
}

describe('hash', () => {
  it('is stable, 16 hex digits, and sensitive to boundaries between strings', () => {
    expect(hashStrings(['a', 'b'])).toMatch(/^[0-9a-f]{16}$/);
    expect(hashStrings(['a', 'b'])).toBe(hashStrings(['a', 'b']));
    expect(hashStrings(['ab', 'c'])).not.toBe(hashStrings(['a', 'bc']));
    expect(hashStrings([])).toBe('cbf29ce484222325');
  });
});

describe('combineParts', () => {
  it('prefixes each part path, sorts, dedupes, signs the set, and carries the top part locus untouched', () => {
    const obs = combineParts([frame(['work'], ["button 'OK'", 'title']), frame([], ["frame 'work'"]), frame(['nav'], ['title'])], 'w/1');
    expect(obs.paths).toEqual(["frame 'work'", 'nav>title', "work>button 'OK'", 'work>title']);
    expect(obs.signature).toBe(hashStrings(obs.paths));
    expect(obs.observer).toBe('w/1');
    expect(obs.locus).toEqual({ url: 'http://x/', title: '' });
  });
  it('joins parts of any surface: a terminal screen with a host and screen locus', () => {
    const green: Part = { part: [], locus: { host: '127.0.0.1:3270', screen: 'HOLD01' }, controls: [], paths: ["field 'SHARE'"], text: 'HOLD' };
    const obs = combineParts([green], 'tn3270/1');
    expect(obs.locus).toEqual({ host: '127.0.0.1:3270', screen: 'HOLD01' });
    expect(obs.paths).toEqual(["field 'SHARE'"]);
  });
});

describe('jaccard', () => {
  it('is |A∩B|/|A∪B| over sets', () => {
    expect(jaccard(seven, seven)).toBe(1);
    expect(jaccard(seven, [...seven.slice(0, 6), 'banner'])).toBeCloseTo(6 / 8);
    expect(jaccard(seven.slice(0, 6), seven)).toBeCloseTo(6 / 7);
    expect(jaccard(['a', 'a'], ['a'])).toBe(1);
    expect(jaccard([], [])).toBe(1);
    expect(jaccard(['a'], [])).toBe(0);
  });
});

describe('nameScreen', () => {
  it('names exact first, with score 1', () => {
    const s = screen('Sign On', seven);
    expect(nameScreen({ paths: seven, signature: signatureOf(seven) }, [screen('Other', ['z']), s])).toEqual({
      label: 'Sign On', how: 'exact', score: 1,
    });
  });

  it('names similar at and above the threshold (one extra banner on seven paths: 7/8 = 0.875)', () => {
    const page = [...seven, 'banner'];
    const m = nameScreen({ paths: page, signature: signatureOf(page) }, [screen('Sign On', seven)]);
    expect(m).toEqual({ label: 'Sign On', how: 'similar', score: 7 / 8 });
  });

  it('refuses just below the threshold', () => {
    // 6 shared of 7 stored + 1 new: 6/8 = 0.75 < 0.85
    const page = [...seven.slice(0, 6), 'new'];
    expect(SIMILAR_THRESHOLD).toBe(0.85);
    expect(nameScreen({ paths: page, signature: signatureOf(page) }, [screen('Sign On', seven)])).toBeNull();
  });

  it('accepts exactly at the threshold', () => {
    const stored = Array.from({ length: 17 }, (_, i) => `p${i}`);
    const page = [...stored, 'x', 'y', 'z'];
    expect(jaccard(page, stored)).toBe(0.85);
    expect(nameScreen({ paths: page, signature: signatureOf(page) }, [screen('Wide', stored)])?.how).toBe('similar');
  });

  it('never guesses between two screens that tie', () => {
    const page = [...seven, 'x'];
    const a = screen('A', seven);
    const b = screen('B', [...seven.slice(1), 'x']);
    expect(jaccard(page, a.paths)).toBe(jaccard(page, b.paths));
    expect(nameScreen({ paths: page, signature: signatureOf(page) }, [a, b])).toBeNull();
  });

  it('never names one of two similar candidates, even the closer one; two labels on one signature are refused too', () => {
    const base = Array.from({ length: 20 }, (_, i) => `p${i}`);
    const page = [...base, 'x'];
    const lower = screen('Lower', base);
    const higher = screen('Higher', [...base, 'x', 'y']);
    expect(jaccard(page, higher.paths)).toBeGreaterThan(jaccard(page, lower.paths));
    expect(jaccard(page, lower.paths)).toBeGreaterThanOrEqual(SIMILAR_THRESHOLD);
    expect(nameScreen({ paths: page, signature: signatureOf(page) }, [lower, higher])).toBeNull();
    expect(nameScreen({ paths: page, signature: signatureOf(page) }, [higher])?.label).toBe('Higher');
    expect(nameScreen({ paths: seven, signature: signatureOf(seven) }, [screen('One', seven), screen('Two', seven)])).toBeNull();
  });
});

describe('naming a screen that can follow a commit', () => {
  // PLUMBLINE's result page and its refusal share all furniture but the result line (13 of 15 paths: 0.87).
  const furniture = Array.from({ length: 13 }, (_, i) => `work>f${i}`);
  const posted = [...furniture, "work>strong 'HOLD POSTED CONFIRMATION HX-#'"];
  const refusal = [...furniture, "work>strong 'HOLD NOT POSTED: SHARE ALREADY HELD (LEGAL)'"];
  const result = (marks?: string[]): KnownScreen => ({
    ...screen('hold_result', posted),
    afterCommit: true,
    ...(marks ? { marks: { paths: marks, text: [] } } : {}),
  });

  it('a refusal with the success screen\'s furniture is not named success by the similar tier', () => {
    expect(jaccard(refusal, posted)).toBeGreaterThanOrEqual(SIMILAR_THRESHOLD);
    expect(nameScreen({ paths: refusal, signature: signatureOf(refusal) }, [result()])).toBeNull();
    expect(nameScreen({ paths: refusal, signature: signatureOf(refusal) }, [result(structuralMarks('hold_result', { hold_result: { paths: posted }, hold_review: { paths: furniture } }))])).toBeNull();
  });

  it('names it when every mark is present (a banner added), and exactly without marks', () => {
    const marks = ["work>strong 'HOLD POSTED CONFIRMATION HX-#'"];
    const banner = [...posted, 'work>banner'];
    expect(nameScreen({ paths: banner, signature: signatureOf(banner) }, [result(marks)])).toMatchObject({ label: 'hold_result', how: 'similar' });
    expect(nameScreen({ paths: banner, signature: signatureOf(banner) }, [result()])).toBeNull();
    expect(nameScreen({ paths: posted, signature: signatureOf(posted) }, [result()])).toMatchObject({ how: 'exact' });
  });

  it('text marks narrow an exact structural match and never make one on their own', () => {
    const done: KnownScreen = { ...screen('done', furniture), afterCommit: true, marks: { paths: [], text: ['SAVED'] } };
    const failed: KnownScreen = { ...screen('failed', furniture), afterCommit: true, marks: { paths: [], text: ['NOT SAVED'] } };
    const sig = signatureOf(furniture);
    expect(nameScreen({ paths: furniture, signature: sig, text: 'RECORD SAVED' }, [done, failed])?.label).toBe('done');
    expect(nameScreen({ paths: furniture, signature: sig, text: 'RECORD NOT SAVED' }, [done, failed])).toBeNull();
    const other = ['totally', 'different'];
    expect(nameScreen({ paths: other, signature: signatureOf(other), text: 'RECORD SAVED' }, [done])).toBeNull();
  });
});

describe('structural marks', () => {
  it('are the paths of a screen that some other declared screen lacks', () => {
    const screens = { a: { paths: ['f', 'x', 'y'] }, b: { paths: ['f', 'x'] }, c: { paths: ['f', 'y'] } };
    expect(structuralMarks('a', screens)).toEqual(['x', 'y']);
    expect(structuralMarks('b', screens)).toEqual(['x']);
  });

  it('are empty when the screen is contained in every other one', () => {
    expect(structuralMarks('a', { a: { paths: ['f'] }, b: { paths: ['f', 'g'] } })).toEqual([]);
  });

  it('never include a path that spells an input\'s value: the authored record is not furniture another run shows', () => {
    // A wiki's saved page lists the new page's title in its sidebar ("Open"): a link named by the typed title, on no
    // other screen. As a mark it is absent on every later run (another title), so the saved page could never be named.
    const screens = {
      saved: { paths: ['f', "main>button 'Edit'", "region>tablist>link 'Shopping list'", "region>tablist>link 'Shopping lists'"] },
      wiki: { paths: ['f'] },
    };
    expect(structuralMarks('saved', screens)).toContain("region>tablist>link 'Shopping list'");
    expect(structuralMarks('saved', screens, { title: 'Shopping list' })).toEqual(["main>button 'Edit'", "region>tablist>link 'Shopping lists'"]);
    // Spelled as a path spells it (digits masked, whitespace collapsed), and only a value that can stand for a record.
    expect(structuralMarks('a', { a: { paths: ["link 'Order #'", "link 'AB'"] }, b: { paths: [] } }, { order: 'Order 12', code: 'AB' })).toEqual(["link 'AB'"]);
  });
  it("leave out a badge drawn for an input (its first letters or initials): the record, not the screen", () => {
    const screens = { done: { paths: ["list>link 'ed'", "list>link 'DR'", "button 'Deploy'", "link 'Ok'"] }, form: { paths: [] } };
    expect(structuralMarks('done', screens, { user: 'editor', owner: 'Dana Reviewer' })).toEqual(["button 'Deploy'", "link 'Ok'"]);
    // Without the values each is a mark; a short word that is no badge of them stays one.
    expect(structuralMarks('done', screens)).toHaveLength(4);
    expect(structuralMarks('done', screens, { user: 'operator' })).toHaveLength(4);
  });
});
