package io.ringtail.examples.dashboard;

import java.util.random.RandomGenerator;

/**
 * A phase of the simulated service: its latencies are log-normal with the given median and spread.
 * Immutable.
 */
enum Regime {
  NORMAL("normal", 40, 0.5),
  DEGRADED("degraded", 150, 0.7),
  RECOVERED("recovered", 40, 0.5);

  private final String label;
  private final double medianNanos;
  private final double sigma;

  Regime(String label, double medianMillis, double sigma) {
    this.label = label;
    this.medianNanos = medianMillis * 1e6;
    this.sigma = sigma;
  }

  /** One request's latency in nanoseconds. */
  long sampleNanos(RandomGenerator random) {
    return Math.round(medianNanos * Math.exp(sigma * random.nextGaussian()));
  }

  String label() {
    return label;
  }
}
