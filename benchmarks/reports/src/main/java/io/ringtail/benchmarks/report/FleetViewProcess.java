package io.ringtail.benchmarks.report;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.ringtail.WindowConfig;
import io.ringtail.benchmarks.toolkit.Cli;
import io.ringtail.benchmarks.toolkit.FleetChildOptions;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.RedisHistogramWindow;
import io.ringtail.redis.RedisKeyedHistogramWindows;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * One JVM of {@link FleetViewReport}'s fleet: {@code --processes} simulated processes, each its own
 * Lettuce client and connection, {@link RedisBackend} and fleet histogram windows of {@code --keys}
 * keys (one keyed window, or with {@code --single} that many single windows), recording {@code
 * --rate} samples/s in all and, unless {@code --read-every 0}, each reading every key of its
 * windows every {@code --read-every} seconds, as a pod's scrape would: their summaries, or with
 * {@code --distributions} their whole distributions.
 *
 * <p>Prints {@code READY}; obeys stdin lines: {@code GO} starts, {@code PHASE 1} starts counting
 * reads and {@code PHASE 2} stops (each answered by {@code BYTES phase n}: the bytes of the batches
 * its processes published so far), {@code END} stops recording, flushes every process and prints
 * {@code COUNT key bucket n} (the exact oracle), {@code READS due done}, {@code READ micros} per
 * counted read, then {@code DONE}. With {@code --victim} it is one process that publishes as any
 * does and prints what it published and recorded so far ({@code STAT}), so that the report can kill
 * it (-9) and still know what Redis may hold. A main, not thread-safe.
 */
public final class FleetViewProcess {
  static final long WIDTH = 1_000_000_000L;
  private static volatile int phase;
  private static volatile boolean stop;

  private FleetViewProcess() {}

  static WindowConfig config() {
    return WindowConfig.builder().length(Duration.ofSeconds(60)).buckets(60).stripes(1).build();
  }

  static String key(int k) {
    return "GET /route/" + k;
  }

  /** The command line. */
  @Command(
      name = "FleetViewProcess",
      mixinStandardHelpOptions = true,
      description = "Simulated pods that publish and read fleet windows (FleetViewReport's child).")
  static final class Options {
    @Mixin FleetChildOptions fleet = FleetChildOptions.defaults("fleet-view", 20_000);

    @Option(names = "--keys", description = "Keys (or single windows) per process.")
    int keys = 20;

    @Option(names = "--read-every", description = "Seconds between a process's reads; 0: none.")
    int readEvery = 2;

    @Option(names = "--single", description = "Single histogram windows instead of keyed ones.")
    boolean single;

    @Option(
        names = "--distributions",
        description = "Read every key's whole distribution (snapshots) instead of its summary.")
    boolean distributions;

    @Option(
        names = "--victim",
        description = "One process that says what it published, to be killed.")
    boolean victim;
  }

  /** One simulated process's windows. */
  private record Pod(
      RedisKeyedHistogramWindows keyed, List<RedisHistogramWindow> singles, boolean distributions) {
    void record(int k, long value, long nanos) {
      if (keyed != null) {
        keyed.recordAt(key(k), value, nanos);
      } else {
        singles.get(k).recordAt(value, nanos);
      }
    }

    long now() {
      return keyed != null ? keyed.timeSource().nanoTime() : singles.get(0).timeSource().nanoTime();
    }

    void read() {
      if (keyed != null) {
        if (distributions) {
          keyed.snapshots();
        } else {
          keyed.summaries();
        }
      } else {
        for (RedisHistogramWindow w : singles) {
          if (distributions) {
            w.snapshot();
          } else {
            w.summary();
          }
        }
      }
    }

    long published() {
      long n = keyed != null ? keyed.stats().published() : 0;
      if (singles != null) {
        for (RedisHistogramWindow w : singles) {
          n += w.stats().published();
        }
      }
      return n;
    }

    long publishedBytes() {
      long n = keyed != null ? keyed.stats().publishedBytes() : 0;
      if (singles != null) {
        for (RedisHistogramWindow w : singles) {
          n += w.stats().publishedBytes();
        }
      }
      return n;
    }

    boolean flush() {
      boolean ok = true;
      if (keyed != null) {
        ok = keyed.flush(Duration.ofSeconds(20));
      } else {
        for (RedisHistogramWindow w : singles) {
          ok &= w.flush(Duration.ofSeconds(20));
        }
      }
      return ok;
    }
  }

  public static void main(String[] args) throws Exception {
    Options cli = Cli.parse(new Options(), args);
    ClientResources resources = DefaultClientResources.create();
    List<Pod> pods = new ArrayList<>();
    int processes = cli.victim ? 1 : cli.fleet.processes();
    for (int p = 0; p < processes; p++) {
      RedisClient client = RedisClient.create(resources);
      client.setOptions(RedisBackend.failFastClientOptions(Duration.ofSeconds(1)));
      StatefulRedisConnection<String, String> connection =
          client.connect(RedisURI.create("127.0.0.1", cli.fleet.port()));
      RedisBackend backend =
          RedisBackend.builder(connection).commandTimeout(Duration.ofSeconds(1)).build();
      if (cli.single) {
        List<RedisHistogramWindow> singles = new ArrayList<>();
        for (int k = 0; k < cli.keys; k++) {
          singles.add(backend.histogramWindow(cli.fleet.name() + "-" + k).config(config()).build());
        }
        pods.add(new Pod(null, singles, cli.distributions));
      } else {
        pods.add(
            new Pod(
                backend.keyedHistogramWindows(cli.fleet.name()).config(config()).build(),
                null,
                cli.distributions));
      }
    }
    System.out.println("READY");
    System.out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    in.readLine(); // GO
    if (cli.victim) {
      victim(pods.get(0), cli);
      return;
    }
    // per key, a ring of 256 buckets tagged with their index: the exact oracle
    long[][] oracle = new long[cli.keys][256];
    long[][] oracleBucket = new long[cli.keys][256];
    AtomicLong due = new AtomicLong();
    AtomicLong onTime = new AtomicLong();
    List<Long> latencies = java.util.Collections.synchronizedList(new ArrayList<>());
    ScheduledExecutorService readers = Executors.newScheduledThreadPool(8);
    if (cli.readEvery > 0) {
      long period = TimeUnit.SECONDS.toNanos(cli.readEvery);
      for (int p = 0; p < pods.size(); p++) {
        Pod pod = pods.get(p);
        long[] next = {System.nanoTime() + period * p / pods.size()};
        readers.scheduleAtFixedRate(
            () -> {
              long t0 = System.nanoTime();
              boolean counted = phase == 1;
              try {
                pod.read();
              } catch (RuntimeException e) {
                // an outage: the read is not done
                next[0] += period;
                if (counted) {
                  due.incrementAndGet();
                }
                return;
              }
              long t1 = System.nanoTime();
              if (counted) {
                due.incrementAndGet();
                if (t1 - next[0] < period) {
                  onTime.incrementAndGet();
                }
                latencies.add((t1 - t0) / 1_000);
              }
              next[0] += period;
            },
            period * p / pods.size(),
            period,
            TimeUnit.NANOSECONDS);
      }
    }
    Thread recorder =
        new Thread(
            () -> {
              SplittableRandom random = new SplittableRandom(cli.fleet.seed());
              long start = System.nanoTime();
              long recorded = 0;
              int p = 0;
              while (!stop) {
                long target = (long) ((System.nanoTime() - start) * (cli.fleet.rate() / 1e9));
                while (recorded < target && !stop) {
                  int k = random.nextInt(cli.keys);
                  long value = 1_000L * (1 + random.nextInt(5_000));
                  Pod pod = pods.get(p);
                  p = p + 1 == pods.size() ? 0 : p + 1;
                  long now = pod.now();
                  pod.record(k, value, now);
                  long bucket = Math.floorDiv(now, WIDTH);
                  int slot = (int) (bucket & 255);
                  if (oracleBucket[k][slot] != bucket) {
                    oracleBucket[k][slot] = bucket;
                    oracle[k][slot] = 0;
                  }
                  oracle[k][slot]++;
                  recorded++;
                }
                LockSupport.parkNanos(500_000);
              }
            },
            "recorder");
    recorder.start();
    String line;
    while ((line = in.readLine()) != null && !line.equals("END")) {
      if (line.startsWith("PHASE ")) {
        phase = Integer.parseInt(line.substring(6).trim());
        long bytes = 0;
        for (Pod pod : pods) {
          bytes += pod.publishedBytes();
        }
        System.out.println("BYTES " + phase + " " + bytes);
        System.out.flush();
      }
    }
    stop = true;
    recorder.join();
    readers.shutdownNow();
    for (Pod pod : pods) {
      pod.flush();
    }
    for (int k = 0; k < cli.keys; k++) {
      for (int slot = 0; slot < 256; slot++) {
        if (oracle[k][slot] > 0) {
          System.out.println("COUNT " + k + " " + oracleBucket[k][slot] + " " + oracle[k][slot]);
        }
      }
    }
    System.out.println("READS " + due.get() + " " + onTime.get());
    synchronized (latencies) {
      for (long micros : latencies) {
        System.out.println("READ " + micros);
      }
    }
    System.out.println("DONE");
    System.out.flush();
    System.exit(0);
  }

  /**
   * Records into every key, publishing as any process does (its ticker, no flush), and prints
   * {@code STAT published recorded bucket n bytes} after each batch of records ({@code n} of them,
   * all in {@code bucket}; {@code bytes} published so far): a kill leaves the fleet counting, of
   * the buckets a snapshot covers, at least {@code published} less what was recorded before them,
   * and at most what was recorded in them plus one batch.
   */
  private static void victim(Pod pod, Options cli) {
    SplittableRandom random = new SplittableRandom(cli.fleet.seed());
    long recorded = 0;
    while (true) {
      long now = pod.now();
      long n = 0;
      for (int k = 0; k < cli.keys; k++) {
        int samples = 1 + random.nextInt(20);
        for (int i = 0; i < samples; i++) {
          pod.record(k, 1_000L * (1 + random.nextInt(5_000)), now);
        }
        n += samples;
      }
      recorded += n;
      System.out.println(
          "STAT "
              + pod.published()
              + " "
              + recorded
              + " "
              + Math.floorDiv(now, WIDTH)
              + " "
              + n
              + " "
              + pod.publishedBytes());
      System.out.flush();
      LockSupport.parkNanos(100_000_000L);
    }
  }
}
