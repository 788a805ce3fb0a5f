package io.ringtail.examples.dashboard;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/**
 * The dashboard's command-line flags. Immutable; {@link #parse} validates every value and throws
 * {@link IllegalArgumentException} naming the flag and the bad value.
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

  static Options parse(String... args) {
    Duration duration = defaults().duration();
    int port = defaults().port();
    int rate = defaults().rate();
    int workers = defaults().workers();
    double slo = defaults().sloMillis();
    Optional<URI> redis = Optional.empty();
    String fleet = null;
    Boolean raw = null;
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      if (flag.equals("--help") || flag.equals("-h")) {
        throw new HelpRequested();
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(flag + " needs a value");
      }
      String value = args[++i];
      switch (flag) {
        case "--duration" -> duration = Duration.ofSeconds(parseLong(flag, value, 1, 86_400));
        case "--port" -> port = (int) parseLong(flag, value, 0, 65_535);
        case "--rate" -> rate = (int) parseLong(flag, value, 1, 1_000_000);
        case "--workers" -> workers = (int) parseLong(flag, value, 1, 64);
        case "--slo-ms" -> slo = parseLong(flag, value, 1, 3_600_000);
        case "--redis" -> redis = Optional.of(parseRedis(value));
        case "--fleet" -> fleet = parseFleet(value);
        case "--fleet-window" -> raw = parseFleetWindow(value);
        default -> throw new IllegalArgumentException("unknown flag " + flag);
      }
    }
    if (fleet != null && redis.isEmpty()) {
      throw new IllegalArgumentException("--fleet needs --redis, but was given without it");
    }
    if (raw != null && redis.isEmpty()) {
      throw new IllegalArgumentException("--fleet-window needs --redis, but was given without it");
    }
    if (fleet == null && redis.isPresent()) {
      fleet = "ringtail-dashboard-" + Long.toHexString(System.currentTimeMillis());
    }
    return new Options(duration, port, rate, workers, slo, redis, fleet, raw != null && raw);
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

  private static long parseLong(String flag, String value, long min, long max) {
    long v;
    try {
      v = Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(flag + " must be a whole number, but was " + value);
    }
    if (v < min || v > max) {
      throw new IllegalArgumentException(
          flag + " must be between " + min + " and " + max + ", but was " + value);
    }
    return v;
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

  /** Thrown by {@link #parse} for {@code --help}. */
  static final class HelpRequested extends RuntimeException {
    private static final long serialVersionUID = 1L;

    HelpRequested() {
      super("help", null, false, false);
    }
  }
}
