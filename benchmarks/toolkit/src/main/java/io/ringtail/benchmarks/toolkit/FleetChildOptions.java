package io.ringtail.benchmarks.toolkit;

import picocli.CommandLine.Option;

/**
 * The flags every simulated-fleet child JVM takes from the report that starts it: the redis-server
 * port, the window name, how many processes it simulates, their samples per second together and the
 * random seed. A picocli mixin; each child gives its own defaults ({@link #defaults}).
 */
public final class FleetChildOptions {
  @Option(names = "--port", description = "The redis-server port.")
  private int port;

  @Option(names = "--name", description = "The window name.")
  private String name;

  @Option(names = "--processes", description = "Simulated processes.")
  private int processes = 10;

  @Option(names = "--rate", description = "Samples per second, all processes together.")
  private long rate;

  @Option(names = "--seed", description = "Random seed.")
  private int seed = 1;

  private FleetChildOptions() {}

  /** A child's flags, by default window {@code name} at {@code rate} samples per second. */
  public static FleetChildOptions defaults(String name, long rate) {
    FleetChildOptions o = new FleetChildOptions();
    o.name = name;
    o.rate = rate;
    return o;
  }

  /** {@code --port}. */
  public int port() {
    return port;
  }

  /** {@code --name}. */
  public String name() {
    return name;
  }

  /** {@code --processes}. */
  public int processes() {
    return processes;
  }

  /** {@code --rate}. */
  public long rate() {
    return rate;
  }

  /** {@code --seed}. */
  public int seed() {
    return seed;
  }
}
