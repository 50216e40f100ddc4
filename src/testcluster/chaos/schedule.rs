//! The seeded schedule: which fault comes next, when, for how long, and
//! which of the candidates it strikes, all drawn from one ChaCha8 stream
//! seeded with `--seed`, so that a seed replays the same draws.

use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::FaultKind;

/// The draws of one chaos run.
pub struct Schedule {
    rng: ChaCha8Rng,
    faults: Vec<FaultKind>,
    every: Duration,
    hold: Duration,
}

/// One drawn fault, before it has a target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Draw {
    /// The kind of fault.
    pub kind: FaultKind,
    /// How long it lasts (a wipe: how long before the machine may come back).
    pub hold: Duration,
    /// For a wipe: whether the machine comes back (empty) at all.
    pub comes_back: bool,
    /// A number that picks the target among the candidates (modulo their count).
    pub pick: u64,
}

impl Schedule {
    /// The schedule of `seed` over `faults` (never empty): faults start
    /// `every` apart on average (uniform in ½…1½ of it) and last ½…1 of `hold`.
    pub fn new(seed: u64, faults: Vec<FaultKind>, every: Duration, hold: Duration) -> Schedule {
        assert!(!faults.is_empty(), "a schedule needs a fault");
        Schedule {
            rng: ChaCha8Rng::seed_from_u64(seed),
            faults,
            every,
            hold,
        }
    }

    /// The time until the next fault starts.
    pub fn gap(&mut self) -> Duration {
        let ms = self.every.as_millis().max(2) as u64;
        Duration::from_millis(self.rng.gen_range(ms / 2..=ms + ms / 2))
    }

    /// The next fault.
    pub fn draw(&mut self) -> Draw {
        let kind = self.faults[self.rng.gen_range(0..self.faults.len())];
        let ms = self.hold.as_millis().max(2) as u64;
        let hold = Duration::from_millis(self.rng.gen_range(ms / 2..=ms));
        let comes_back = self.rng.gen_bool(0.5);
        let pick = self.rng.gen();
        Draw {
            kind,
            hold,
            comes_back,
            pick,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draws(seed: u64) -> Vec<(Duration, Draw)> {
        let mut s = Schedule::new(
            seed,
            FaultKind::ALL.to_vec(),
            Duration::from_secs(10),
            Duration::from_secs(20),
        );
        (0..20).map(|_| (s.gap(), s.draw())).collect()
    }

    #[test]
    fn a_seed_replays_the_same_schedule() {
        assert_eq!(draws(7), draws(7));
        assert_ne!(draws(7), draws(8));
    }

    #[test]
    fn gaps_and_holds_stay_in_their_ranges() {
        for (gap, d) in draws(3) {
            assert!(gap >= Duration::from_secs(5) && gap <= Duration::from_secs(15));
            assert!(d.hold >= Duration::from_secs(10) && d.hold <= Duration::from_secs(20));
        }
    }
}
