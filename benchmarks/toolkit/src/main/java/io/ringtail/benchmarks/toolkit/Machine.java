package io.ringtail.benchmarks.toolkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Facts about the machine a report runs on and the processes it starts, and the one change a report
 * makes to them.
 */
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

  /**
   * The CPU seconds (user and system) of process {@code pid}'s threads but its JIT compiler's, from
   * Linux's {@code /proc}; NaN where there is none. The compiler still works tens of seconds into a
   * Spring Boot application's load (on one CPU, a quarter of it), on a schedule of its own: counted
   * in, it would be most of the difference between two rounds of a load.
   */
  public static double cpuSecondsBesidesJit(long pid) {
    Path tasks = Path.of("/proc", Long.toString(pid), "task");
    long ticks = 0;
    try (Stream<Path> threads = Files.list(tasks)) {
      for (Path t : (Iterable<Path>) threads::iterator) {
        try {
          String stat = Files.readString(t.resolve("stat"));
          int close = stat.lastIndexOf(')');
          String name = stat.substring(stat.indexOf('(') + 1, close);
          if (name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre")) {
            continue;
          }
          String[] f = stat.substring(close + 2).split(" ");
          ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime
        } catch (IOException | RuntimeException e) {
          // the thread ended
        }
      }
    } catch (IOException e) {
      return Double.NaN;
    }
    return ticks / TICKS_PER_SECOND;
  }

  /** Linux's clock ticks per second in {@code /proc/PID/task/TID/stat} (USER_HZ). */
  private static final double TICKS_PER_SECOND = 100;
}
