package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.ringtail.ManualTimeSource;
import io.ringtail.redis.testkit.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a flush and a close of keyed fleet windows answer when this process's own merges fail or
 * lose their compare-and-set to other processes' merges: whether this process's samples reached the
 * fleet's merged view, not whether its own merge landed.
 */
class FleetFlushTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  private static final long T0 = 1_000_000_000_000_000L;
  private static final Duration QUIET = Duration.ofMinutes(1);

  private RedisProcess server;
  private final List<RedisClient> clients = new ArrayList<>();
  private StatefulRedisConnection<String, String> admin;

  @BeforeEach
  void start() {
    server = RedisProcess.start();
    RedisClient client = RedisClient.create();
    clients.add(client);
    admin = client.connect(server.uri());
  }

  @AfterEach
  void stop() {
    for (RedisClient c : clients) {
      RedisTestSupport.shutdown(c);
    }
    server.close();
  }

  private RedisBackend backend(RedisURI uri) {
    RedisClient client = RedisClient.create();
    client.setOptions(RedisBackend.failFastClientOptions(TIMEOUT));
    clients.add(client);
    return RedisBackend.builder(client.connect(uri)).commandTimeout(TIMEOUT).build();
  }

  /**
   * Process b sent a batch that the merger a merged; b's own merges are then refused (its user may
   * run no script here, as a merge that keeps losing its compare-and-set never lands either). b's
   * flush still answers true: its inbox read shows none of its batches left, so nothing of it is
   * unmerged. Before, the flag a failed merge left was cleared only by a merge of b's own that
   * landed, and this flush returned false with nothing pending.
   */
  @Test
  void flush_isTrue_onceAnotherProcessMergedItsBatches_thoughItsOwnMergesFail() throws Exception {
    admin
        .sync()
        .dispatch(
            CommandType.ACL,
            new StatusOutput<>(StringCodec.UTF8),
            new CommandArgs<>(StringCodec.UTF8)
                .add("SETUSER")
                .add("no-scripts")
                .add("on")
                .add(">secret")
                .add("~*")
                .add("+@all")
                .add("-evalsha")
                .add("-eval"));
    ManualTimeSource time = new ManualTimeSource(T0);
    String name = RedisTestSupport.uniqueName("refused");
    RedisKeyedHistogramWindows a =
        backend(server.uri())
            .keyedHistogramWindows(name)
            .timeSource(time)
            .publishInterval(QUIET)
            .build();
    RedisKeyedHistogramWindows b =
        backend(RedisURI.builder(server.uri()).withAuthentication("no-scripts", "secret").build())
            .keyedHistogramWindows(name)
            .timeSource(time)
            .publishInterval(QUIET)
            .build();
    a.record("k", 1);
    assertThat(a.flush(TIMEOUT)).isTrue(); // a takes the lease and merges
    for (int i = 0; i < 10; i++) {
      b.record("k", 2);
    }
    time.advance(Duration.ofSeconds(1));
    b.tick().get(5, TimeUnit.SECONDS); // b's batch into the inbox; b merges nothing
    a.tick().get(5, TimeUnit.SECONDS); // a merges it
    FleetKeys keys = new FleetKeys("ringtail", name, 1_000_000_000L, 2, 1);
    int g = FleetKeys.group("k");
    // a field no merge has taken yet: b's merge has work, and its commit is refused
    admin.sync().hset(keys.inbox(g), "other:1", "not a batch");

    assertThat(b.flush(Duration.ofMillis(500))).as("b's samples are merged").isTrue();
    assertThat(b.stats().failedCalls()).isZero();
    assertThat(a.snapshot("k").count()).isEqualTo(11);
  }

  /**
   * Twelve processes record, then close at once: their flushes merge the same groups at the same
   * time, most merges lose the compare-and-set to another's, and every close still answers true,
   * with every sample counted once.
   */
  @Test
  void processesClosingAtOnce_allAnswerTrue_andCountEverySampleOnce() throws Exception {
    int processes = 12;
    ManualTimeSource time = new ManualTimeSource(T0);
    String name = RedisTestSupport.uniqueName("closing");
    RedisKeyedHistogramWindows reader =
        backend(server.uri())
            .keyedHistogramWindows(name)
            .timeSource(time)
            .publishInterval(QUIET)
            .build();
    ExecutorService pool = Executors.newFixedThreadPool(processes);
    try {
      for (int round = 0; round < 3; round++) {
        String prefix = "r" + round + "/";
        List<RedisKeyedHistogramWindows> closing = new ArrayList<>();
        for (int p = 0; p < processes; p++) {
          closing.add(
              backend(server.uri())
                  .keyedHistogramWindows(name)
                  .timeSource(time)
                  .publishInterval(QUIET)
                  .build());
        }
        for (RedisKeyedHistogramWindows w : closing) {
          for (int k = 0; k < 40; k++) {
            w.record(prefix + k, 1 + k);
          }
        }
        CyclicBarrier together = new CyclicBarrier(processes);
        List<Future<Boolean>> closed = new ArrayList<>();
        for (RedisKeyedHistogramWindows w : closing) {
          closed.add(
              pool.submit(
                  () -> {
                    together.await();
                    return w.close();
                  }));
        }
        for (Future<Boolean> f : closed) {
          assertThat(f.get(60, TimeUnit.SECONDS)).as("close answered").isTrue();
        }
        for (int k = 0; k < 40; k++) {
          assertThat(reader.snapshot(prefix + k).count()).isEqualTo(processes);
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** The stats count the bytes of the batches Redis confirmed: what the inbox holds of them. */
  @Test
  void publishedBytes_areTheBytesOfTheBatchesInTheInbox() throws Exception {
    ManualTimeSource time = new ManualTimeSource(T0);
    String name = RedisTestSupport.uniqueName("bytes");
    RedisKeyedHistogramWindows a =
        backend(server.uri())
            .keyedHistogramWindows(name)
            .timeSource(time)
            .publishInterval(QUIET)
            .build();
    RedisKeyedHistogramWindows b =
        backend(server.uri())
            .keyedHistogramWindows(name)
            .timeSource(time)
            .publishInterval(QUIET)
            .build();
    a.record("k", 1);
    assertThat(a.flush(TIMEOUT)).isTrue(); // a holds the lease; b's batches wait for a's tick
    for (int i = 0; i < 100; i++) {
      b.record("k", 1_000 + i * 37);
    }
    time.advance(Duration.ofSeconds(1));
    b.tick().get(5, TimeUnit.SECONDS);
    FleetKeys keys = new FleetKeys("ringtail", name, 1_000_000_000L, 2, 1);
    String inbox = keys.inbox(FleetKeys.group("k"));
    long held = 0;
    for (String field : admin.sync().hkeys(inbox)) {
      if (!field.startsWith(FleetMerger.MARKER)) {
        held += admin.sync().hstrlen(inbox, field);
      }
    }
    assertThat(held).isPositive();
    assertThat(b.stats().publishedBytes()).isEqualTo(held);
  }

  /** A flush after close publishes and merges what was recorded since, rather than nothing. */
  @Test
  void flushAfterClose_publishesWhatWasRecordedSince() {
    ManualTimeSource time = new ManualTimeSource(T0);
    String name = RedisTestSupport.uniqueName("after-close");
    RedisKeyedHistogramWindows w =
        backend(server.uri())
            .keyedHistogramWindows(name)
            .timeSource(time)
            .publishInterval(QUIET)
            .build();
    w.record("k", 1);
    assertThat(w.close()).isTrue();
    w.record("k", 2);
    assertThat(w.flush(TIMEOUT)).isTrue();
    assertThat(w.snapshot("k").count()).isEqualTo(2);
  }
}
