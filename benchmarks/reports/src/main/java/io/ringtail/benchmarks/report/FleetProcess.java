package io.ringtail.benchmarks.report;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.TimeSource;
import io.ringtail.benchmarks.toolkit.Cli;
import io.ringtail.benchmarks.toolkit.FleetChildOptions;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.RedisHistogramWindow;
import io.ringtail.redis.RedisHistogramWindowStats;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * One JVM of {@link FleetReport}'s fleet: {@code --processes} simulated processes, each a thread
 * with its own Lettuce client, connection, {@link RedisBackend} and histogram window, recording
 * log-normal latencies (median 2 ms, whole microseconds, at most 50 ms) at {@code --rate /
 * --processes} samples/s each for {@code --seconds}, into one window: exactly rate x seconds
 * samples, paced from one start the JVM's processes share. Every sample is also counted in an exact
 * per-bucket, per-microsecond oracle. Prints {@code READY}, waits for a line on stdin, runs,
 * flushes, writes the oracle to {@code --out} and prints its stats with the time from the start to
 * its last sample.
 *
 * <p>A main, not thread-safe.
 */
public final class FleetProcess {
  static final int MAX_MICROS = 50_000;
  static final int RING = 64;
  private static final long WIDTH = 1_000_000_000L;

  private FleetProcess() {}

  /** The command line. */
  @Command(
      name = "FleetProcess",
      mixinStandardHelpOptions = true,
      description = "Simulated processes of one fleet histogram window (a FleetReport child).")
  static final class Options {
    @Mixin FleetChildOptions fleet = FleetChildOptions.defaults("fleet", 500_000);

    @Option(names = "--seconds", description = "Seconds of load.")
    int seconds = 60;

    @Option(names = "--out", description = "Where to write the samples recorded (the oracle).")
    String out = "oracle.bin";
  }

  public static void main(String[] args) throws Exception {
    Options cli = Cli.parse(new Options(), args);
    String host = "127.0.0.1";
    int port = cli.fleet.port();
    String name = cli.fleet.name();
    int processes = cli.fleet.processes();
    long rate = cli.fleet.rate();
    int seconds = cli.seconds;
    String out = cli.out;
    int seed = cli.fleet.seed();
    List<Simulated> fleet = new ArrayList<>();
    for (int p = 0; p < processes; p++) {
      fleet.add(
          new Simulated(RedisURI.create(host, port), name, rate / processes, seed * 1000 + p));
    }
    System.out.println("READY");
    System.out.flush();
    new BufferedReader(new InputStreamReader(System.in)).readLine();
    long start = System.nanoTime();
    long end = start + seconds * 1_000_000_000L;
    List<Thread> threads = new ArrayList<>();
    for (Simulated s : fleet) {
      Thread t = new Thread(() -> s.run(start, end), "simulated-process");
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      t.join();
    }
    long published = 0;
    long dropped = 0;
    long expired = 0;
    long failed = 0;
    long pending = 0;
    long recorded = 0;
    long recordingNanos = 0;
    for (Simulated s : fleet) {
      recordingNanos = Math.max(recordingNanos, s.doneNanos - start);
      RedisHistogramWindowStats st = s.window.stats();
      published += st.published();
      dropped += st.dropped();
      expired += st.expired();
      failed += st.failedCalls();
      pending += st.pendingSamples();
      recorded += s.recorded;
    }
    try (DataOutputStream o =
        new DataOutputStream(new BufferedOutputStream(new FileOutputStream(out)))) {
      long[] buckets = fleet.get(0).ringBucket.clone();
      o.writeInt(RING);
      for (int slot = 0; slot < RING; slot++) {
        long bucket = buckets[slot];
        int[] sum = new int[MAX_MICROS + 1];
        for (Simulated s : fleet) {
          if (s.ringBucket[slot] == bucket) {
            for (int m = 0; m <= MAX_MICROS; m++) {
              sum[m] += s.oracle[slot][m];
            }
          }
        }
        o.writeLong(bucket);
        for (int c : sum) {
          o.writeInt(c);
        }
      }
    }
    System.out.println(
        "STATS "
            + recorded
            + " "
            + published
            + " "
            + dropped
            + " "
            + expired
            + " "
            + failed
            + " "
            + pending
            + " "
            + recordingNanos);
    for (Simulated s : fleet) {
      s.close();
    }
    System.out.flush();
  }

  /** One simulated process: its own connection, backend and window. */
  static final class Simulated {
    final RedisClient client;
    final StatefulRedisConnection<String, String> connection;
    final RedisHistogramWindow window;
    final long rate;
    final SplittableRandom random;
    final int[][] oracle = new int[RING][MAX_MICROS + 1];
    final long[] ringBucket = new long[RING];
    long recorded;

    /** When this process recorded its last sample. */
    volatile long doneNanos;

    Simulated(RedisURI uri, String name, long rate, long seed) {
      client = RedisClient.create();
      client.setOptions(RedisBackend.failFastClientOptions(Duration.ofSeconds(1)));
      connection = client.connect(uri);
      RedisBackend backend =
          RedisBackend.builder(connection).commandTimeout(Duration.ofSeconds(1)).build();
      window = backend.histogramWindow(name).build();
      this.rate = rate;
      this.random = new SplittableRandom(seed);
      Arrays.fill(ringBucket, Long.MIN_VALUE);
    }

    /**
     * Records {@code rate} samples/s from {@code startNanos} (shared by the JVM's processes) until
     * exactly {@code rate x (endNanos - startNanos)} samples are recorded: paced by the clock,
     * catching up after every pause, so a late wake-up costs time, not samples.
     */
    void run(long startNanos, long endNanos) {
      TimeSource time = window.timeSource();
      long total = (long) ((endNanos - startNanos) * (rate / 1e9));
      while (recorded < total) {
        long due = Math.min(total, (long) ((System.nanoTime() - startNanos) * (rate / 1e9)));
        while (recorded < due) {
          double g =
              Math.sqrt(-2 * Math.log(1 - random.nextDouble()))
                  * Math.cos(2 * Math.PI * random.nextDouble());
          int micros = (int) Math.min(MAX_MICROS, Math.max(1, Math.exp(7.6 + 0.6 * g)));
          long t = time.nanoTime();
          window.recordAt(micros * 1_000L, t);
          long bucket = Math.floorDiv(t, WIDTH);
          int slot = (int) (bucket & (RING - 1));
          if (ringBucket[slot] != bucket) {
            ringBucket[slot] = bucket;
            Arrays.fill(oracle[slot], 0);
          }
          oracle[slot][micros]++;
          recorded++;
        }
        if (recorded < total) {
          LockSupport.parkNanos(500_000);
        }
      }
      doneNanos = System.nanoTime();
      window.flush(Duration.ofSeconds(10));
    }

    void close() {
      connection.close();
      client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
    }
  }
}
