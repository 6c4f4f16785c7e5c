/**
 * One, five and fifteen minute exponentially weighted moving averages of an
 * event rate, the "meter" of MicroProfile Metrics 4.x (and of Dropwizard
 * Metrics, which it followed): every `TICK_MS` the events counted since the
 * last tick move each average towards the instant rate.
 *
 * Nothing runs per event: the owner keeps the count and calls
 * {@linkcode Rates.tick} when its clock passes {@linkcode Rates.tickAt}, on
 * an update or a read. A tick that comes late folds the counted events into
 * the first missed interval (they all happened before its end, or the
 * owner's update would have ticked sooner) and decays the averages over the
 * others, so the result equals ticking on time.
 *
 * @module
 */

/** Interval between two ticks of the averages. */
export const TICK_MS = 5000;
const TICK_SECONDS = TICK_MS / 1000;
const alpha = (minutes: number) => 1 - Math.exp(-TICK_SECONDS / 60 / minutes);
const ALPHA_1 = alpha(1);
const ALPHA_5 = alpha(5);
const ALPHA_15 = alpha(15);

/** The three moving averages, in events per second. */
export class Rates {
  oneMinute = 0;
  fiveMinutes = 0;
  fifteenMinutes = 0;
  /** The clock value at which the next tick is due. */
  tickAt: number;
  #counted = 0;
  #started = false;

  constructor(now: number) {
    this.tickAt = now + TICK_MS;
  }

  /** Folds in the events up to `count` for every tick due at `now`. */
  tick(count: number, now: number): void {
    if (now < this.tickAt) return;
    const ticks = Math.floor((now - this.tickAt) / TICK_MS) + 1;
    const instant = (count - this.#counted) / TICK_SECONDS;
    this.#counted = count;
    this.tickAt += ticks * TICK_MS;
    if (!this.#started) {
      this.#started = true;
      this.oneMinute = this.fiveMinutes = this.fifteenMinutes = instant;
    } else {
      this.oneMinute += ALPHA_1 * (instant - this.oneMinute);
      this.fiveMinutes += ALPHA_5 * (instant - this.fiveMinutes);
      this.fifteenMinutes += ALPHA_15 * (instant - this.fifteenMinutes);
    }
    // The missed ticks saw no event: each decays the averages once.
    const idle = ticks - 1;
    if (idle > 0) {
      this.oneMinute *= (1 - ALPHA_1) ** idle;
      this.fiveMinutes *= (1 - ALPHA_5) ** idle;
      this.fifteenMinutes *= (1 - ALPHA_15) ** idle;
    }
  }
}
