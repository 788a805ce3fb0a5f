package io.ringtail.examples.dashboard;

import io.ringtail.examples.Flags;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/**
 * The dashboard's command-line flags. Immutable; {@link #parse} reads them with {@link Flags} and
 * validates every value, throwing {@link IllegalArgumentException} naming the flag and the bad
 * value.
 */
record Options(
    Duration duration,
    int port,
    int rate,
    int workers,
    double sloMillis,
    Optional<URI> redis,
    String fleet,
    boolean rawFleetWindow) {

  static final String USAGE =
      String.join(
          "\n",
          "Usage: SlaDashboard [--duration SECONDS] [--port PORT] [--rate REQUESTS_PER_SECOND]",
          "                    [--workers N] [--slo-ms MILLIS]",
          "                    [--redis redis://HOST:PORT [--fleet NAME] [--fleet-window histogram|raw]]",
          "  --duration  how long to run, then exit (default 60)",
          "  --port      local port for the page, 0 picks a free one (default 0)",
          "  --rate      simulated requests per second, over all workers (default 1000)",
          "  --workers   simulated service instances recording concurrently (default 4)",
          "  --slo-ms    P95 latency target the alert watches (default 250)",
          "  --redis     workers share fleet-wide windows in this Redis instead of in-process windows",
          "  --fleet     name of the fleet-wide windows; dashboards given the same name share them",
          "              (default: a new name per run)",
          "  --fleet-window  histogram: per-bucket histograms merged in Redis, any rate (default);",
          "              raw: every sample in Redis, exact percentiles, up to about 100k samples/s");

  static Options defaults() {
    return new Options(Duration.ofSeconds(60), 0, 1000, 4, 250, Optional.empty(), null, false);
  }

  /**
   * The options {@code args} give.
   *
   * @throws Flags.HelpRequested for {@code --help}
   * @throws IllegalArgumentException for a bad flag or value, naming both
   */
  static Options parse(String... args) {
    Options d = defaults();
    Flags flags =
        Flags.parse(
            args,
            "--duration",
            "--port",
            "--rate",
            "--workers",
            "--slo-ms",
            "--redis",
            "--fleet",
            "--fleet-window");
    Duration duration =
        Duration.ofSeconds(flags.whole("--duration", d.duration().toSeconds(), 1, 86_400));
    int port = (int) flags.whole("--port", d.port(), 0, 65_535);
    int rate = (int) flags.whole("--rate", d.rate(), 1, 1_000_000);
    int workers = (int) flags.whole("--workers", d.workers(), 1, 64);
    double slo = flags.whole("--slo-ms", (long) d.sloMillis(), 1, 3_600_000);
    Optional<URI> redis = flags.string("--redis").map(Options::parseRedis);
    String fleet = flags.string("--fleet").map(Options::parseFleet).orElse(null);
    Optional<Boolean> raw = flags.string("--fleet-window").map(Options::parseFleetWindow);
    if (fleet != null && redis.isEmpty()) {
      throw new IllegalArgumentException("--fleet needs --redis, but was given without it");
    }
    if (raw.isPresent() && redis.isEmpty()) {
      throw new IllegalArgumentException("--fleet-window needs --redis, but was given without it");
    }
    if (fleet == null && redis.isPresent()) {
      fleet = "ringtail-dashboard-" + Long.toHexString(System.currentTimeMillis());
    }
    return new Options(duration, port, rate, workers, slo, redis, fleet, raw.orElse(false));
  }

  private static boolean parseFleetWindow(String value) {
    return switch (value) {
      case "histogram" -> false;
      case "raw" -> true;
      default ->
          throw new IllegalArgumentException(
              "--fleet-window must be histogram or raw, but was " + value);
    };
  }

  private static String parseFleet(String value) {
    if (!value.matches("[A-Za-z0-9._:-]{1,100}")) {
      throw new IllegalArgumentException(
          "--fleet must be 1 to 100 letters, digits or ._:-, but was " + value);
    }
    return value;
  }

  private static URI parseRedis(String value) {
    URI uri;
    try {
      uri = URI.create(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "--redis must be a URL like redis://localhost:6379, but was " + value);
    }
    if (!"redis".equals(uri.getScheme()) || uri.getHost() == null) {
      throw new IllegalArgumentException(
          "--redis must be a URL like redis://localhost:6379, but was " + value);
    }
    return uri;
  }
}
