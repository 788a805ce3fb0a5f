package io.ringtail.benchmarks.report;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.ringtail.WindowConfig;
import io.ringtail.benchmarks.toolkit.Cli;
import io.ringtail.benchmarks.toolkit.FleetChildOptions;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.RedisHistogramWindowStats;
import io.ringtail.redis.RedisKeyedHistogramWindows;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * One JVM of {@link KeyedFleetReport}'s fleet: {@code --processes} simulated processes, each with
 * its own Lettuce client and connection (sharing this JVM's client resources), {@link RedisBackend}
 * and keyed histogram windows of {@code --keys} keys, plus an in-process {@link KeyedWindows} of
 * the same keys and configuration. {@code --threads} recording threads share the processes and
 * record {@code --rate} samples/s in all (log-normal latencies, median 2 ms, whole microseconds),
 * each sample into both: the fleet window and the in-process one, each {@code record} timed on its
 * own ({@link RecordTimings}), in alternating order.
 *
 * <p>Prints {@code READY}; then obeys lines on stdin: {@code GO} starts recording, {@code PHASE n}
 * makes later records count in phase {@code n}'s timings, {@code END} stops, flushes every process,
 * and prints {@code COUNT key bucket n} per key and bucket (the exact oracle), {@code STATS ...},
 * and the record tail's {@code TAIL} and {@code SLOW} lines ({@link RecordTimings#print}, its slow
 * calls classified by {@code --safepoint-log}). A main, not thread-safe.
 */
public final class KeyedFleetProcess {
  static final int PHASES = 3;
  static final int RING = 256;
  static final long WIDTH = 1_000_000_000L;
  private static volatile int phase;
  private static volatile boolean stop;

  private KeyedFleetProcess() {}

  static WindowConfig config() {
    return WindowConfig.builder().length(Duration.ofSeconds(60)).buckets(60).stripes(1).build();
  }

  static String key(int k) {
    return "GET /route/" + k;
  }

  /** The command line. */
  @Command(
      name = "KeyedFleetProcess",
      mixinStandardHelpOptions = true,
      description = "Simulated processes of keyed fleet windows (a KeyedFleetReport child).")
  static final class Options {
    @Mixin FleetChildOptions fleet = FleetChildOptions.defaults("fleet", 100_000);

    @Option(names = "--keys", description = "Windows (keys) per process.")
    int keys = 1;

    @Option(names = "--threads", description = "Recording threads.")
    int threads = 2;

    @Option(
        names = "--safepoint-log",
        description =
            "This JVM's -Xlog:safepoint file (decorated with tn), to classify slow calls.")
    Path safepointLog;
  }

  public static void main(String[] args) throws Exception {
    Options cli = Cli.parse(new Options(), args);
    int port = cli.fleet.port();
    String name = cli.fleet.name();
    int processes = cli.fleet.processes();
    int keys = cli.keys;
    int threads = cli.threads;
    long rate = cli.fleet.rate();
    int seed = cli.fleet.seed();
    ClientResources resources = DefaultClientResources.create();
    List<RedisClient> clients = new ArrayList<>();
    List<RedisKeyedHistogramWindows> fleet = new ArrayList<>();
    List<KeyedWindows> local = new ArrayList<>();
    for (int p = 0; p < processes; p++) {
      RedisClient client = RedisClient.create(resources);
      client.setOptions(RedisBackend.failFastClientOptions(Duration.ofSeconds(1)));
      clients.add(client);
      StatefulRedisConnection<String, String> connection =
          client.connect(RedisURI.create("127.0.0.1", port));
      RedisBackend backend =
          RedisBackend.builder(connection).commandTimeout(Duration.ofSeconds(1)).build();
      fleet.add(backend.keyedHistogramWindows(name).config(config()).build());
      local.add(KeyedWindows.builder().window(config()).build());
    }
    // per thread, key and bucket (a ring of RING buckets, each tagged with its index)
    long[][][] oracle = new long[threads][keys][RING];
    long[][][] oracleBucket = new long[threads][keys][RING];
    RecordTimings[] timings = new RecordTimings[threads];
    System.out.println("READY");
    System.out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    in.readLine();
    long start = System.nanoTime();
    List<Thread> recorders = new ArrayList<>();
    int keyCount = keys;
    String[] keyNames = new String[keys];
    for (int k = 0; k < keys; k++) {
      keyNames[k] = key(k);
    }
    for (int t = 0; t < threads; t++) {
      int id = t;
      RecordTimings timing = new RecordTimings(PHASES, 100_000);
      timings[t] = timing;
      long perThread = rate / threads;
      SplittableRandom random = new SplittableRandom(seed * 1000L + t);
      List<RedisKeyedHistogramWindows> myFleet = new ArrayList<>();
      List<KeyedWindows> myLocal = new ArrayList<>();
      for (int p = id; p < fleet.size(); p += threads) {
        myFleet.add(fleet.get(p));
        myLocal.add(local.get(p));
      }
      Thread thread =
          new Thread(
              () -> {
                long recorded = 0;
                int p = 0;
                while (!stop) {
                  long due = (long) ((System.nanoTime() - start) * (perThread / 1e9));
                  while (recorded < due && !stop) {
                    double g =
                        Math.sqrt(-2 * Math.log(1 - random.nextDouble()))
                            * Math.cos(2 * Math.PI * random.nextDouble());
                    long value =
                        1_000L * (long) Math.min(50_000, Math.max(1, Math.exp(7.6 + 0.6 * g)));
                    int k = random.nextInt(keyCount);
                    String key = keyNames[k];
                    RedisKeyedHistogramWindows f = myFleet.get(p);
                    KeyedWindows l = myLocal.get(p);
                    if (++p == myFleet.size()) {
                      p = 0;
                    }
                    int ph = phase;
                    // each window's clock is read before its timed record, as record() would
                    long ft = f.timeSource().nanoTime();
                    long lt = l.timeSource().nanoTime();
                    long t0 = System.nanoTime();
                    if ((recorded & 1) == 0) {
                      f.recordAt(key, value, ft);
                      long t1 = System.nanoTime();
                      l.recordAt(key, value, lt);
                      long t2 = System.nanoTime();
                      timing.add(ph, RecordTimings.FLEET, t0, t1);
                      timing.add(ph, RecordTimings.LOCAL, t1, t2);
                    } else {
                      l.recordAt(key, value, lt);
                      long t1 = System.nanoTime();
                      f.recordAt(key, value, ft);
                      long t2 = System.nanoTime();
                      timing.add(ph, RecordTimings.LOCAL, t0, t1);
                      timing.add(ph, RecordTimings.FLEET, t1, t2);
                    }
                    long bucket = Math.floorDiv(ft, WIDTH);
                    int slot = (int) (bucket & (RING - 1));
                    if (oracleBucket[id][k][slot] != bucket) {
                      oracleBucket[id][k][slot] = bucket;
                      oracle[id][k][slot] = 0;
                    }
                    oracle[id][k][slot]++;
                    recorded++;
                  }
                  LockSupport.parkNanos(200_000);
                }
              },
              "recorder-" + t);
      thread.start();
      recorders.add(thread);
    }
    String line;
    while ((line = in.readLine()) != null) {
      if (line.startsWith("PHASE ")) {
        phase = Integer.parseInt(line.substring(6).trim());
      } else if (line.equals("END")) {
        break;
      }
    }
    stop = true;
    for (Thread t : recorders) {
      t.join();
    }
    long[] stats = new long[6];
    for (RedisKeyedHistogramWindows w : fleet) {
      w.flush(Duration.ofSeconds(20));
      RedisHistogramWindowStats s = w.stats();
      stats[0] += s.published();
      stats[1] += s.failedCalls();
      stats[2] += s.retriedDuplicates();
      stats[3] += s.dropped();
      stats[4] += s.expired();
      stats[5] += s.pendingSamples();
    }
    for (int t = 0; t < threads; t++) {
      for (int k = 0; k < keys; k++) {
        for (int slot = 0; slot < RING; slot++) {
          if (oracle[t][k][slot] > 0) {
            System.out.println(
                "COUNT "
                    + key(k).replace(' ', '_')
                    + " "
                    + oracleBucket[t][k][slot]
                    + " "
                    + oracle[t][k][slot]);
          }
        }
      }
    }
    System.out.println(
        "STATS " + stats[0] + " " + stats[1] + " " + stats[2] + " " + stats[3] + " " + stats[4]
            + " " + stats[5]);
    RecordTimings.print(timings, PHASES, cli.safepointLog, System.out);
    System.out.println("DONE");
    System.out.flush();
    for (RedisKeyedHistogramWindows w : fleet) {
      w.close();
    }
    for (RedisClient c : clients) {
      c.shutdown(Duration.ZERO, Duration.ofSeconds(1));
    }
    resources.shutdown();
  }
}
