package io.ringtail.redis;

import io.lettuce.core.protocol.CommandType;
import io.ringtail.BucketHistogram;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Merges the inboxes of one fleet histogram window's groups into one histogram per key and bucket,
 * for the whole fleet: the merge-once half of the engine. Thread-safe.
 *
 * <h2>Who merges</h2>
 *
 * Each group has a lease in Redis ({@code SET NX PX}, taken by whichever process publishes into a
 * free group first, see {@link KeyedDeltaPublisher}; a publisher tries only when its marker in the
 * inbox, which every merge deletes, shows that no merge ran since its last batch); its holder
 * merges the group every round and renews the lease at every tick and halfway between ({@link
 * FleetLeases#renew}), and a lease lasts one publish interval (at least a second, so that a tick a
 * few milliseconds late does not lose it): it lapses at most an interval after its holder's death,
 * and another process, trying at its next tick, takes over within two intervals (within a second
 * and an interval for intervals under a second). A process keeps trying for the lease of each group
 * it sent to in the last window, with its batches or alone, so batches never wait in a group whose
 * merger died and where nobody else publishes. The lease only spreads the work: any process may
 * merge (a flush does), and correctness rests on the commit alone.
 *
 * <h2>One merge</h2>
 *
 * <ol>
 *   <li>Reads the group's stamp and inbox (two commands, one flush: all an idle group costs), then
 *       its table and head.
 *   <li>Drops every inbox field whose sequence number is at most its process's last merged one in
 *       the table: a retry of a batch already merged. A process sends its next batch to a group
 *       only once Redis answered for the previous one, so its fields land in sequence order and
 *       this one number per process tells a retry from a new batch.
 *   <li>Adds the other batches' deltas per key and bucket, reads those buckets' merged values (one
 *       {@code MGET}) and adds them.
 *   <li>Commits in one script ({@code fleet_merge.lua}) if the stamp (a count of the group's
 *       merges) is still the one read: sets the merged buckets, the table (each process's last
 *       merged sequence), the head (each key's bucket versions: the stamp of the merge that last
 *       changed it) and the next stamp, and deletes the merged fields. Otherwise nothing is written
 *       and the fields stay for the next merge.
 * </ol>
 *
 * A merger that dies anywhere before the commit leaves the inbox as it was; one that dies after it
 * has finished. Either way nothing is lost and nothing counts twice. Redis work per merge is
 * O(fields in the inbox + buckets changed); the script stores bytes and parses none. Memory per key
 * once merged is its merged buckets and its line of the head, whatever the number of processes; the
 * table holds one short row per process that published in the window, per group.
 */
final class FleetMerger {
  private final ScriptRunner runner;
  private final FleetKeys keys;
  private final TimeSource time;
  private final FleetLeases leases;
  private final long widthNanos;
  private final int buckets;
  private final long graceMillis;
  private final MergedGroups view;
  private final AtomicIntegerArray unmerged = new AtomicIntegerArray(FleetKeys.GROUPS);
  private final AtomicReferenceArray<CompletableFuture<Boolean>> running =
      new AtomicReferenceArray<>(FleetKeys.GROUPS);

  /**
   * Prefix of a publisher's marker field in an inbox: set with each batch, deleted by every merge,
   * so a publisher that finds its marker gone knows a merger ran since its last batch.
   */
  static final String MARKER = "#m:";

  private static final System.Logger LOG = System.getLogger(FleetMerger.class.getName());

  /**
   * @param leases this process's merger leases
   * @param view what this process keeps of the groups it holds, and their summaries
   * @param graceMillis added to every TTL, beyond the end of the window
   */
  FleetMerger(
      ScriptRunner runner,
      FleetKeys keys,
      TimeSource time,
      WindowConfig config,
      FleetLeases leases,
      MergedGroups view,
      long graceMillis) {
    this.runner = runner;
    this.view = view;
    this.keys = keys;
    this.time = time;
    this.leases = leases;
    this.widthNanos = config.bucketWidth().toNanos();
    this.buckets = config.buckets();
    this.graceMillis = graceMillis;
    for (int g = 0; g < FleetKeys.GROUPS; g++) {
      running.set(g, CompletableFuture.completedFuture(true));
    }
  }

  /**
   * Once {@code answered} (a send or a lease try) completes true, merges group {@code g} if this
   * process holds its lease or {@code flushing}; a merge that succeeds clears {@link #unmerged}. A
   * send that failed merges nothing: Redis is likely away, and the batch is sent again.
   */
  CompletableFuture<Void> mergeAfter(
      int g, CompletableFuture<Boolean> answered, boolean flushing, boolean tick) {
    return answered.thenCompose(
        ok -> {
          if (!ok || !(leases.holds(g) || flushing)) {
            return CompletableFuture.completedFuture(null);
          }
          return merge(g, tick)
              .thenAccept(
                  merged -> {
                    if (merged) {
                      unmerged.set(g, 0);
                    }
                  });
        });
  }

  /**
   * Records that Redis answered a batch this process sent to group {@code g}: the group stays
   * {@link #unmerged} until a merge of this process succeeds after it (rounds run one at a time,
   * and a round's merges follow its sends' answers).
   */
  void sent(int g) {
    unmerged.set(g, 1);
  }

  /**
   * Whether this process sent to group {@code g} and no merge of it by this process has run since.
   */
  boolean unmerged(int g) {
    return unmerged.get(g) == 1;
  }

  /** How many groups are {@link #unmerged}: what a flush still waits for besides its deltas. */
  int unmergedGroups() {
    int n = 0;
    for (int g = 0; g < FleetKeys.GROUPS; g++) {
      n += unmerged.get(g);
    }
    return n;
  }

  /**
   * Merges group {@code g}'s inbox, or joins the merge of it this process is running; in a ticker's
   * round or a flush ({@code tick}) the holder also writes the group's summary again where it is
   * due. The future completes with true once the inbox was found empty or the commit landed, false
   * if Redis failed or refused a call or other merges kept committing first (the fields then wait
   * for the next merge).
   */
  CompletableFuture<Boolean> merge(int g, boolean tick) {
    CompletableFuture<Boolean> current = running.get(g);
    if (!current.isDone()) {
      return current;
    }
    CompletableFuture<Boolean> mine = new CompletableFuture<>();
    if (!running.compareAndSet(g, current, mine)) {
      return running.get(g);
    }
    attempt(g, 3, tick, mine);
    return mine;
  }

  /** Merges, trying again at once (up to {@code tries}) when another merge committed first. */
  private void attempt(int g, int tries, boolean tick, CompletableFuture<Boolean> done) {
    try {
      mergeOnce(g, tick)
          .whenComplete(
              (committed, error) -> {
                if (error == null && !committed && tries > 1) {
                  attempt(g, tries - 1, tick, done);
                } else {
                  done.complete(error == null && committed);
                }
              });
    } catch (RuntimeException e) {
      done.complete(false);
    }
  }

  /** One merge; true unless another merge committed first. */
  private CompletableFuture<Boolean> mergeOnce(int g, boolean tick) {
    List<CompletableFuture<List<Object>>> reads = new ArrayList<>(2);
    runner.batched(
        () -> {
          reads.add(runner.call(RedisCall.command(CommandType.GET, keys.stamp(g))));
          reads.add(runner.call(RedisCall.command(CommandType.HGETALL, keys.inbox(g))));
        });
    return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new))
        .thenCompose(
            done -> {
              List<Object> inbox = reads.get(1).join();
              String stamp = BinaryReply.text(reads.get(0).join().get(0));
              if (!holdsBatchOfThisProcess(inbox)) {
                // another merge took this process's batches, whether or not this one lands
                unmerged.set(g, 0);
              }
              boolean summarise = leases.holds(g);
              if (!summarise) {
                view.drop(g);
              }
              if (inbox.isEmpty()) { // an idle group costs its holder two small reads a round
                // the ticker keeps the summary moving with the window; a read or flush does not
                return summarise && tick
                    ? refreshSummary(g, stamp).thenApply(written -> true)
                    : CompletableFuture.completedFuture(true);
              }
              // read after the stamp: a commit in between changes the stamp, and this merge's
              // commit then changes nothing
              List<CompletableFuture<List<Object>>> state = new ArrayList<>(2);
              runner.batched(
                  () -> {
                    state.add(runner.call(RedisCall.command(CommandType.GET, keys.table(g))));
                    state.add(runner.call(RedisCall.command(CommandType.GET, keys.head(g))));
                  });
              return CompletableFuture.allOf(state.toArray(CompletableFuture[]::new))
                  .thenCompose(
                      read ->
                          gathered(
                              g,
                              stamp,
                              FleetCodec.Table.decode((byte[]) state.get(0).join().get(0)),
                              FleetCodec.Head.decode((byte[]) state.get(1).join().get(0)),
                              inbox,
                              summarise));
            });
  }

  /** Whether the inbox holds a batch of this process (its marker aside). */
  private boolean holdsBatchOfThisProcess(List<Object> inbox) {
    byte[] prefix = (leases.token() + ":").getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i + 1 < inbox.size(); i += 2) {
      byte[] field = (byte[]) inbox.get(i);
      if (field.length > prefix.length
          && java.util.Arrays.equals(field, 0, prefix.length, prefix, 0, prefix.length)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Writes group {@code g}'s summary again where due though nothing was merged (a bucket closed, or
   * another process merged since this view was synced): syncs the view to the group's head if it is
   * not at {@code stamp}, then sets the summary if the stamp is still {@code stamp}. Completes with
   * whether a summary was written.
   */
  private CompletableFuture<Boolean> refreshSummary(int g, String stamp) {
    long now = time.nanoTime();
    if (!view.summaryDue(g, stamp, now)) {
      return CompletableFuture.completedFuture(false);
    }
    CompletableFuture<Void> synced =
        view.syncedAt(g, stamp)
            ? CompletableFuture.completedFuture(null)
            : runner
                .call(RedisCall.command(CommandType.GET, keys.head(g)))
                .thenCompose(reply -> sync(g, FleetCodec.Head.decode((byte[]) reply.get(0)), now));
    return synced.thenCompose(
        done -> {
          FleetCodec.Summary summary = view.summarise(g, now);
          long stateTtl = buckets * widthNanos / 1_000_000L + graceMillis;
          return runner
              .call(
                  RedisCall.script(
                      HistogramScripts.SUMMARY,
                      new String[] {keys.stamp(g), keys.summary(g), keys.lease(g)},
                      new byte[][] {
                        ascii(stamp == null ? "" : stamp),
                        summary.encode(widthNanos),
                        ascii(Long.toString(stateTtl)),
                        ascii(leases.token()),
                        ascii(Long.toString(leases.leaseMillis()))
                      }))
              .handle(
                  (reply, error) -> {
                    long outcome = error == null ? (Long) reply.get(0) : 0;
                    if (outcome == 0) {
                      view.failed(g, List.of());
                      return false;
                    }
                    view.committed(g, stamp == null ? "" : stamp, summary);
                    leases.committed(g, outcome == 2);
                    return true;
                  });
        });
  }

  /**
   * Brings group {@code g}'s view to {@code head}: reads the buckets whose version it does not hold
   * (one {@code MGET} per 512 buckets, all sent at once).
   */
  private CompletableFuture<Void> sync(int g, FleetCodec.Head head, long now) {
    Map<String, Map<Long, Long>> stale = view.stale(g, head, now);
    List<Object[]> wanted = new ArrayList<>();
    stale.forEach(
        (key, versions) -> versions.forEach((b, v) -> wanted.add(new Object[] {key, b, v})));
    if (wanted.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    List<CompletableFuture<Void>> reads = new ArrayList<>();
    runner.batched(
        () -> {
          for (int from = 0; from < wanted.size(); from += SYNC_CHUNK) {
            List<Object[]> chunk = wanted.subList(from, Math.min(wanted.size(), from + SYNC_CHUNK));
            String[] bucketKeys = new String[chunk.size()];
            for (int i = 0; i < chunk.size(); i++) {
              bucketKeys[i] = keys.bucket(g, (String) chunk.get(i)[0], (Long) chunk.get(i)[1]);
            }
            reads.add(
                runner
                    .call(RedisCall.command(CommandType.MGET, bucketKeys))
                    .thenAccept(
                        values -> {
                          for (int i = 0; i < chunk.size(); i++) {
                            long bucket = (Long) chunk.get(i)[1];
                            view.put(
                                g,
                                (String) chunk.get(i)[0],
                                bucket,
                                (Long) chunk.get(i)[2],
                                FleetCodec.decodeBucket(bucket, (byte[]) values.get(i)));
                          }
                        }));
          }
        });
    return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new));
  }

  /** Buckets per {@code MGET} of a sync: each command stays short for the server. */
  private static final int SYNC_CHUNK = 512;

  /** Step 2: what the inbox adds, per key and bucket; then the merged values it adds to. */
  private CompletableFuture<Boolean> gathered(
      int g,
      String stamp,
      FleetCodec.Table table,
      FleetCodec.Head head,
      List<Object> inbox,
      boolean summarise) {
    if (inbox.isEmpty()) {
      return CompletableFuture.completedFuture(true);
    }
    long now = time.nanoTime();
    long first = Math.floorDiv(now, widthNanos) - buckets + 1;
    Map<String, FleetCodec.Publisher> rows = new LinkedHashMap<>(table.publishers());
    Map<Ref, BucketHistogram> deltas = new HashMap<>();
    List<String> consumed = new ArrayList<>(inbox.size() / 2);
    for (int i = 0; i + 1 < inbox.size(); i += 2) {
      String field = new String((byte[]) inbox.get(i), StandardCharsets.UTF_8);
      consumed.add(field);
      if (field.startsWith(MARKER)) {
        continue; // deleted with the batches: its publisher learns a merger ran
      }
      int colon = field.lastIndexOf(':');
      String process = colon < 0 ? field : field.substring(0, colon);
      long sequence;
      FleetCodec.Batch batch;
      try {
        sequence = Long.parseLong(field.substring(colon + 1), 36);
        batch = FleetCodec.Batch.decode((byte[]) inbox.get(i + 1));
      } catch (RuntimeException e) { // not a batch of this engine: dropped, and said
        LOG.log(
            System.Logger.Level.WARNING,
            "dropped inbox field " + field + " of " + keys.inbox(g) + ": not a batch",
            e);
        continue;
      }
      FleetCodec.Publisher merged = table.publishers().get(process);
      if (merged != null && sequence <= merged.lastSequence()) {
        continue; // a retry of a batch an earlier merge took
      }
      for (FleetCodec.BucketHistogramOfKey e : batch.entries()) {
        BucketHistogram h = e.histogram();
        if (h.bucket() >= first) {
          deltas.merge(new Ref(e.key(), h.bucket()), h, BucketHistogram::plus);
        }
      }
      rows.merge(
          process,
          new FleetCodec.Publisher(sequence, batch.asOfNanos()),
          (a, b) ->
              new FleetCodec.Publisher(
                  Math.max(a.lastSequence(), b.lastSequence()),
                  Math.max(a.latestAsOfNanos(), b.latestAsOfNanos())));
    }
    List<Ref> touched = new ArrayList<>(deltas.keySet());
    List<Ref> stored = new ArrayList<>();
    for (Ref r : touched) {
      TreeMap<Long, Long> versions = head.keys().get(r.key);
      if (versions != null && versions.containsKey(r.bucket)) {
        stored.add(r);
      }
    }
    // the view, synced to the head, holds the merged values the deltas add to; a stored bucket it
    // does not hold at the head's version (beyond the window as this process's clock has it) is
    // read with the others
    CompletableFuture<Void> synced =
        summarise ? sync(g, head, now) : CompletableFuture.completedFuture(null);
    return synced.thenCompose(
        done -> {
          java.util.Set<Ref> read = new java.util.LinkedHashSet<>();
          for (Ref r : stored) {
            if (!summarise
                || !view.holds(g, r.key, r.bucket, head.keys().get(r.key).get(r.bucket))) {
              read.add(r);
            }
          }
          if (summarise) {
            for (Ref r : stored) {
              if (!read.contains(r)) {
                deltas.merge(r, view.get(g, r.key, r.bucket), BucketHistogram::plus);
              }
            }
          }
          CompletableFuture<List<Object>> old =
              read.isEmpty()
                  ? CompletableFuture.completedFuture(List.of())
                  : runner.call(
                      RedisCall.command(
                          CommandType.MGET,
                          read.stream()
                              .map(r -> keys.bucket(g, r.key, r.bucket))
                              .toArray(String[]::new)));
          List<Ref> asRead = new ArrayList<>(read);
          return old.thenCompose(
              values -> {
                for (int i = 0; i < asRead.size(); i++) {
                  Ref r = asRead.get(i);
                  BucketHistogram before =
                      FleetCodec.decodeBucket(r.bucket, (byte[]) values.get(i));
                  if (before != null) {
                    deltas.merge(r, before, BucketHistogram::plus);
                  }
                }
                return commit(
                    g, stamp, head, rows, deltas, touched, consumed, now, first, summarise);
              });
        });
  }

  /** Step 3: the commit, by compare-and-set on the stamp. */
  private CompletableFuture<Boolean> commit(
      int g,
      String stamp,
      FleetCodec.Head head,
      Map<String, FleetCodec.Publisher> rows,
      Map<Ref, BucketHistogram> merged,
      List<Ref> touched,
      List<String> consumed,
      long now,
      long first,
      boolean summarise) {
    // a counter, so that versions stay short in the head; it starts again only after the group's
    // state expired, when no bucket a reader may hold is still in the window
    long version = stamp == null || stamp.isEmpty() ? 1 : parseStamp(stamp) + 1;
    long windowStart = first * widthNanos;
    // rows of processes silent for a window (and a grace) go: no retry of theirs can still count
    long forgetBefore = windowStart - graceMillis * 1_000_000L;
    rows.values().removeIf(p -> p.latestAsOfNanos() < forgetBefore);
    int active = 0;
    long oldest = Long.MAX_VALUE;
    for (FleetCodec.Publisher p : rows.values()) {
      if (p.latestAsOfNanos() >= windowStart) {
        active++;
        oldest = Math.min(oldest, p.latestAsOfNanos());
      }
    }
    Map<String, TreeMap<Long, Long>> keyVersions = new LinkedHashMap<>();
    head.keys()
        .forEach(
            (key, versions) -> {
              TreeMap<Long, Long> kept = new TreeMap<>(versions.tailMap(first, true));
              if (!kept.isEmpty()) {
                keyVersions.put(key, kept);
              }
            });
    for (Ref r : touched) {
      keyVersions.computeIfAbsent(r.key, k -> new TreeMap<>()).put(r.bucket, version);
    }
    FleetCodec.Head next =
        new FleetCodec.Head(now, active, active == 0 ? now : oldest, keyVersions);
    long stateTtl = buckets * widthNanos / 1_000_000L + graceMillis;
    FleetCodec.Summary summary = null;
    if (summarise) {
      // tentatively: kept if the commit lands, forgotten otherwise
      for (Ref r : touched) {
        view.put(g, r.key, r.bucket, version, merged.get(r));
      }
      summary = view.summarise(g, now, next.publishers(), next.oldestPublicationNanos());
    }
    String[] k = new String[6 + touched.size()];
    k[0] = keys.stamp(g);
    k[1] = keys.table(g);
    k[2] = keys.head(g);
    k[3] = keys.inbox(g);
    k[4] = keys.lease(g);
    k[5] = keys.summary(g);
    byte[][] args = new byte[9 + consumed.size() + 2 * touched.size()][];
    args[0] = ascii(stamp == null ? "" : stamp);
    args[1] = ascii(Long.toString(version));
    args[2] = ascii(leases.token());
    args[3] = ascii(Long.toString(stateTtl));
    args[4] = ascii(Long.toString(leases.leaseMillis()));
    args[5] = new FleetCodec.Table(rows).encode();
    args[6] = next.encode();
    args[7] = summary == null ? new byte[0] : summary.encode(widthNanos);
    args[8] = ascii(Integer.toString(consumed.size()));
    int a = 9;
    for (String field : consumed) {
      args[a++] = field.getBytes(StandardCharsets.UTF_8);
    }
    for (int i = 0; i < touched.size(); i++) {
      Ref r = touched.get(i);
      k[6 + i] = keys.bucket(g, r.key, r.bucket);
      long ttl = Math.max(1, ((r.bucket + buckets) * widthNanos - now) / 1_000_000L) + graceMillis;
      args[a++] = FleetCodec.encodeBucket(merged.get(r));
      args[a++] = ascii(Long.toString(ttl));
    }
    FleetCodec.Summary written = summary;
    return runner
        .call(RedisCall.script(HistogramScripts.MERGE, k, args))
        .handle(
            (reply, error) -> {
              long outcome = error == null ? (Long) reply.get(0) : 0;
              if (outcome == 0) {
                if (summarise) {
                  List<Map.Entry<String, Long>> applied = new ArrayList<>(touched.size());
                  for (Ref r : touched) {
                    applied.add(Map.entry(r.key, r.bucket));
                  }
                  view.failed(g, applied);
                }
                if (error != null) {
                  throw error instanceof RuntimeException re
                      ? re
                      : new java.util.concurrent.CompletionException(error);
                }
                return false;
              }
              if (summarise) {
                view.committed(g, Long.toString(version), written);
              }
              leases.committed(g, outcome == 2);
              return true;
            });
  }

  private static long parseStamp(String stamp) {
    try {
      return Math.max(0, Long.parseLong(stamp));
    } catch (NumberFormatException e) {
      return 0; // not this engine's: the next commit starts the count again
    }
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  /** One key's bucket. */
  private record Ref(String key, long bucket) {}
}
