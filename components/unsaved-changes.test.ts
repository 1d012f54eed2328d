import { describe, expect, it } from 'vitest';
import { answerQuestion, ask, confirmLeave, currentQuestion, subscribeQuestion } from './unsaved-changes';

const question = { title: 'Unsaved changes', message: 'Leave and discard them?', confirmLabel: 'Leave', cancelLabel: 'Keep editing' };

describe('the unsaved-changes question', () => {
  it('is open until the dialog answers; the first answer counts', async () => {
    let changes = 0;
    const stop = subscribeQuestion(() => changes++);
    const answer = ask(question);
    expect(currentQuestion()).toEqual(question);
    answerQuestion(true);
    answerQuestion(false);
    await expect(answer).resolves.toBe(true);
    expect(currentQuestion()).toBeNull();
    expect(changes).toBe(2);
    stop();
  });

  it('a newer question answers the open one "stay"', async () => {
    const first = ask(question);
    const second = ask({ ...question, title: 'Discard?' });
    await expect(first).resolves.toBe(false);
    expect(currentQuestion()?.title).toBe('Discard?');
    answerQuestion(false);
    await expect(second).resolves.toBe(false);
  });

  it('with nothing unsaved, leaving asks nothing', async () => {
    await expect(confirmLeave()).resolves.toBe(true);
    expect(currentQuestion()).toBeNull();
  });
});
