package io.ringtail.examples.dashboard;

import java.util.random.RandomGenerator;

/**
 * A phase of the simulated service: its latencies are log-normal with the given median and spread,
 * and a fixed fraction of its requests fail. Immutable.
 */
enum Regime {
  NORMAL("normal", 40, 0.5, 0.0001),
  DEGRADED("degraded", 150, 0.7, 0.05),
  RECOVERED("recovered", 40, 0.5, 0.0001);

  private final String label;
  private final double medianNanos;
  private final double sigma;
  private final double failureRatio;

  Regime(String label, double medianMillis, double sigma, double failureRatio) {
    this.label = label;
    this.medianNanos = medianMillis * 1e6;
    this.sigma = sigma;
    this.failureRatio = failureRatio;
  }

  /** One request's latency in nanoseconds. */
  long sampleNanos(RandomGenerator random) {
    return Math.round(medianNanos * Math.exp(sigma * random.nextGaussian()));
  }

  /** Whether one request fails: true for {@link #failureRatio()} of the draws. */
  boolean sampleFailed(RandomGenerator random) {
    return random.nextDouble() < failureRatio;
  }

  /** The fraction of this regime's requests that fail. */
  double failureRatio() {
    return failureRatio;
  }

  String label() {
    return label;
  }
}
