package io.ringtail.benchmarks.report;

import io.ringtail.internal.Checks;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The service load report's closed loop driven by {@code wrk}, a load generator of its own process
 * (C, an event loop per thread) that takes far less CPU per request than this JVM's HTTP clients:
 * {@code wrk -t THREADS -c CONNECTIONS -d SECONDSs --latency -s service-load.lua}, the script
 * alternating the load target's two endpoints over the same ids as {@link HttpLoad}. wrk reports
 * percentiles, not each latency: a run's result is its request count, throughput and latency
 * percentiles. Not thread-safe.
 */
final class WrkLoad {
  /** One run: requests completed, requests/s, and latency percentiles in µs. */
  record Result(
      long requests,
      double perSecond,
      double p50Micros,
      double p75Micros,
      double p90Micros,
      double p99Micros) {}

  /**
   * wrk completed its run but counted answers other than 2xx or 3xx, or socket errors: the load
   * reached the application, which answered some of it with errors.
   */
  static final class ErrorAnswers extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    ErrorAnswers(String message) {
      super(message);
    }
  }

  private final int threads;
  private final int connections;
  private final Path script;

  /**
   * A load of {@code connections} connections over {@code threads} wrk threads (each thread keeps
   * {@code connections / threads}, so the one must divide the other).
   *
   * @throws IllegalArgumentException for counts below 1 or that do not divide, or if {@code wrk} is
   *     not on the {@code PATH}
   */
  WrkLoad(int threads, int connections) throws IOException {
    Checks.requirePositive("--load-threads", threads);
    Checks.requirePositive("--connections", connections);
    if (connections % threads != 0) {
      throw Checks.invalid(
          "--connections", "a multiple of --load-threads (" + threads + ") for wrk", connections);
    }
    if (version() == null) {
      throw new IllegalArgumentException(
          "wrk is not on the PATH: install it (apt-get install wrk) or use --load java");
    }
    this.threads = threads;
    this.connections = connections;
    script = Files.createTempFile("service-load", ".lua");
    script.toFile().deleteOnExit();
    try (InputStream in = WrkLoad.class.getResourceAsStream("service-load.lua")) {
      if (in == null) {
        throw new IllegalStateException("service-load.lua is missing from the reports' jar");
      }
      Files.write(script, in.readAllBytes());
    }
  }

  /** wrk's first line of {@code -v} ("wrk 4.1.0 ..."), or null if there is no wrk on the PATH. */
  static String version() {
    String path = System.getenv("PATH");
    if (path == null
        || List.of(path.split(File.pathSeparator)).stream()
            .noneMatch(d -> !d.isEmpty() && Files.isExecutable(Path.of(d, "wrk")))) {
      return null;
    }
    try {
      Process p = new ProcessBuilder("wrk", "-v").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor(10, TimeUnit.SECONDS);
      String first = out.lines().findFirst().orElse("wrk").trim();
      int copyright = first.indexOf(" Copyright");
      return copyright < 0 ? first : first.substring(0, copyright);
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /**
   * Every connection in a closed loop on the application at {@code port} for {@code seconds}.
   *
   * @throws ErrorAnswers if wrk reports error answers or socket errors
   * @throws IllegalStateException if wrk fails, runs far over its time, or its output is unreadable
   */
  Result closedLoop(int port, int seconds) throws IOException, InterruptedException {
    Checks.requirePositive("seconds", seconds);
    List<String> command =
        List.of(
            "wrk",
            "-t" + threads,
            "-c" + connections,
            "-d" + seconds + "s",
            "--latency",
            "-s",
            script.toString(),
            "http://127.0.0.1:" + port,
            "--",
            Integer.toString(connections / threads));
    Path output = Files.createTempFile("wrk", ".txt");
    try {
      Process wrk =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      if (!wrk.waitFor(seconds + 60L, TimeUnit.SECONDS)) {
        wrk.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + " did not finish");
      }
      String out = Files.readString(output);
      if (wrk.exitValue() != 0) {
        throw new IllegalStateException(
            String.join(" ", command) + " exited with " + wrk.exitValue() + ":\n" + out);
      }
      return parse(out);
    } finally {
      Files.deleteIfExists(output);
    }
  }

  private static final Pattern REQUESTS = Pattern.compile("(?m)^\\s*(\\d+) requests in ");
  private static final Pattern PER_SECOND =
      Pattern.compile("(?m)^Requests/sec:\\s*(\\d+(?:\\.\\d+)?)\\s*$");
  private static final Pattern NON_2XX =
      Pattern.compile("(?m)^\\s*Non-2xx or 3xx responses:\\s*(\\d+)");
  private static final Pattern SOCKET_ERRORS = Pattern.compile("(?m)^\\s*Socket errors:.*$");

  /**
   * wrk's output with {@code --latency}: its request count ("N requests in ..."), {@code
   * Requests/sec} and latency distribution (50, 75, 90 and 99 %).
   *
   * @throws ErrorAnswers if wrk reports responses other than 2xx or 3xx or socket errors
   * @throws IllegalStateException if a figure is missing or unreadable
   */
  static Result parse(String output) {
    Matcher non2xx = NON_2XX.matcher(output);
    if (non2xx.find()) {
      throw new ErrorAnswers(
          "wrk got " + non2xx.group(1) + " responses other than 2xx or 3xx:\n" + output);
    }
    Matcher errors = SOCKET_ERRORS.matcher(output);
    if (errors.find()) {
      throw new ErrorAnswers("wrk reports " + errors.group().trim() + ":\n" + output);
    }
    try {
      long requests = Long.parseLong(find(REQUESTS, output, "request count"));
      if (requests <= 0) {
        throw new IllegalStateException("wrk completed no request:\n" + output);
      }
      return new Result(
          requests,
          Double.parseDouble(find(PER_SECOND, output, "Requests/sec")),
          percentileMicros(output, 50),
          percentileMicros(output, 75),
          percentileMicros(output, 90),
          percentileMicros(output, 99));
    } catch (NumberFormatException e) {
      throw new IllegalStateException("wrk's output has an unreadable number:\n" + output, e);
    }
  }

  /** The {@code percent} line of wrk's latency distribution (" 99% 4.75ms"), in µs. */
  private static double percentileMicros(String output, int percent) {
    Pattern line =
        Pattern.compile("(?m)^\\s*" + percent + "%\\s+(\\d+(?:\\.\\d+)?(?:us|ms|s|m|h))\\s*$");
    String time = find(line, output, percent + " % line in a latency distribution");
    Matcher m = Pattern.compile("(\\d+(?:\\.\\d+)?)(us|ms|s|m|h)").matcher(time);
    if (!m.matches()) {
      throw new IllegalStateException("wrk's time " + time + " is unreadable");
    }
    double value = Double.parseDouble(m.group(1));
    return switch (m.group(2).toLowerCase(Locale.ROOT)) {
      case "us" -> value;
      case "ms" -> value * 1e3;
      case "s" -> value * 1e6;
      case "m" -> value * 60e6;
      default -> value * 3600e6;
    };
  }

  private static String find(Pattern pattern, String output, String what) {
    Matcher m = pattern.matcher(output);
    if (!m.find()) {
      throw new IllegalStateException("wrk's output has no " + what + ":\n" + output);
    }
    return m.group(1);
  }
}
