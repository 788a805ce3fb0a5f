package io.ringtail.benchmarks.report;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code redis-benchmark} program (Debian: redis-tools) run as a child process against the
 * report's server: 50 clients sending one command (random {@code __rand_int__} values) at a given
 * pipeline depth, read back as requests per second from its CSV output. Stateless.
 */
final class RedisBenchmarkProcess {
  private RedisBenchmarkProcess() {}

  /** Requests per second of {@code command} over {@code requests} requests. */
  static double requestsPerSecond(int port, int requests, int pipeline, List<String> command)
      throws IOException, InterruptedException {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "redis-benchmark",
                "-h",
                "127.0.0.1",
                "-p",
                Integer.toString(port),
                "-c",
                "50",
                "-n",
                Integer.toString(requests),
                "-P",
                Integer.toString(pipeline),
                "-r",
                "1000000000",
                "--csv"));
    cmd.addAll(command);
    Process p;
    try {
      p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new IllegalStateException(
          "redis-benchmark not on the PATH (Debian: apt-get install redis-tools)", e);
    }
    String last = null;
    StringBuilder all = new StringBuilder();
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        all.append(line).append('\n');
        if (line.startsWith("\"") && !line.startsWith("\"test\"")) {
          last = line;
        }
      }
    }
    if (p.waitFor() != 0 || last == null) {
      throw new IllegalStateException("redis-benchmark failed: " + all);
    }
    return Double.parseDouble(last.split(",")[1].replace("\"", ""));
  }
}
