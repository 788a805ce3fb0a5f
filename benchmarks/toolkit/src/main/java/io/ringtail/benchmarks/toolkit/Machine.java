package io.ringtail.benchmarks.toolkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Facts about the machine a report runs on, and the one change a report makes to it. */
public final class Machine {
  private Machine() {}

  /** The machine's CPUs (not only those this JVM may run on). */
  public static long cores() {
    try {
      return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
          .filter(l -> l.startsWith("processor"))
          .count();
    } catch (IOException e) {
      return Runtime.getRuntime().availableProcessors();
    }
  }

  /** The CPU model, or "unknown CPU" off Linux. */
  public static String cpuModel() {
    try {
      return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
          .filter(l -> l.startsWith("model name"))
          .findFirst()
          .map(l -> l.substring(l.indexOf(':') + 1).trim())
          .orElse("unknown CPU");
    } catch (IOException e) {
      return "unknown CPU";
    }
  }

  /** The one-minute load average, or "unknown" off Linux. */
  public static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim().split(" ")[0];
    } catch (IOException e) {
      return "unknown";
    }
  }

  /**
   * Moves every thread of process {@code pid} (a redis-server or an application a report started)
   * to {@code cpus} ({@code taskset}, Linux): with the JVM kept off them ({@code taskset -c 0 java
   * ...}), the server's times are its own, not shared with the clients' threads, as on a Redis
   * host.
   */
  public static void pin(long pid, String cpus) throws IOException, InterruptedException {
    Process taskset =
        new ProcessBuilder("taskset", "-a", "-p", "-c", cpus, Long.toString(pid))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (taskset.waitFor() != 0) {
      throw new IllegalStateException("taskset -a -p -c " + cpus + " " + pid + " failed");
    }
    System.out.println("process " + pid + " pinned to CPUs " + cpus);
  }

  /**
   * Runs every thread of process {@code pid} (a redis-server a report started) at real-time
   * priority ({@code chrt -f 10}, as root), as on a host of its own: the simulated fleet on the
   * same cores can then never keep it waiting for one, so {@code SLOWLOG} counts the server's own
   * work.
   */
  public static void realtime(long pid) throws IOException, InterruptedException {
    Process chrt =
        new ProcessBuilder("chrt", "-a", "-f", "-p", "10", Long.toString(pid))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (chrt.waitFor() != 0) {
      throw new IllegalStateException("chrt -a -f -p 10 " + pid + " failed");
    }
    System.out.println("redis-server at real-time priority");
  }
}
