package io.ringtail.benchmarks.report;

import io.ringtail.benchmarks.toolkit.ChildJvm;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The service load report's HTTP load on the examples' load target: one thread and one HTTP/1.1
 * client per connection, each alternating the target's two endpoints ({@code /orders/{id}}, {@code
 * /items/{id}/price}), in closed loops or on a fixed schedule. The clients are kept for the whole
 * run: a client's selector thread lives as long as the client, so clients made per round would pile
 * up threads on the load's CPUs, round after round. Not thread-safe.
 */
final class HttpLoad {
  /** Requests per second over a run, and each request's latency (empty when not kept). */
  record Result(double perSecond, long[] latenciesNanos) {}

  private final List<HttpClient> clients = new ArrayList<>();

  /** A load of {@code connections} clients. */
  HttpLoad(int connections) {
    for (int c = 0; c < connections; c++) {
      clients.add(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build());
    }
  }

  /**
   * Waits until the application answers on {@code port}, polling it; throws with its output if it
   * exits or has not answered within {@code timeout}.
   */
  static void awaitServing(ChildJvm app, int port, Duration timeout) throws InterruptedException {
    HttpClient probe = HttpClient.newHttpClient();
    HttpRequest ready = HttpRequest.newBuilder(URI.create(base(port) + "/orders/1")).build();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      try {
        if (probe.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      if (System.nanoTime() > deadline || !app.process.isAlive()) {
        throw new IllegalStateException("the application did not start: " + app.lines);
      }
      Thread.sleep(200); // a real process starting: polled, bounded by the deadline
    }
  }

  /**
   * Every client in a closed loop for {@code seconds}: a request as soon as the last one answered;
   * latencies kept if {@code keep}.
   */
  Result closedLoop(int port, int seconds, boolean keep) throws InterruptedException {
    return drive(port, seconds, 0, keep);
  }

  /**
   * {@code rate} requests/s for {@code seconds}, spread over the clients on a fixed schedule (each
   * client one request every {@code connections / rate} s, the clients staggered); each latency
   * runs from the request's scheduled time, so a late send counts as latency.
   */
  long[] paced(int port, int rate, int seconds) throws InterruptedException {
    long interval = Duration.ofSeconds(clients.size()).toNanos() / rate;
    return drive(port, seconds, interval, true).latenciesNanos();
  }

  /**
   * The closed loop ({@code interval} 0) or the schedule of one request per {@code interval};
   * throws {@link IllegalStateException} if any client got an answer other than 200 or failed.
   */
  private Result drive(int port, int seconds, long interval, boolean keep)
      throws InterruptedException {
    int connections = clients.size();
    long start = System.nanoTime() + (interval > 0 ? Duration.ofMillis(100).toNanos() : 0);
    long end = start + Duration.ofSeconds(seconds).toNanos();
    int most = !keep ? 0 : interval > 0 ? (int) ((end - start) / interval) + 2 : 1 << 20;
    AtomicLong requests = new AtomicLong();
    // a client that fails (an answer other than 200, an I/O error) fails the whole run: its
    // requests would otherwise be missing from the throughput without a word
    AtomicReference<RuntimeException> failure = new AtomicReference<>();
    List<long[]> latencies = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < connections; c++) {
      int client = c;
      long[] mine = new long[most];
      latencies.add(mine);
      Thread t =
          new Thread(
              () -> {
                HttpClient http = clients.get(client);
                HttpRequest[] endpoints = {
                  HttpRequest.newBuilder(URI.create(base(port) + "/orders/" + client)).build(),
                  HttpRequest.newBuilder(URI.create(base(port) + "/items/" + client + "/price"))
                      .build()
                };
                long due = start + (interval > 0 ? client * interval / connections : 0);
                int n = 0;
                try {
                  while (true) {
                    if (interval == 0) {
                      due = System.nanoTime();
                    }
                    if (due >= end) {
                      break;
                    }
                    long wait;
                    while ((wait = due - System.nanoTime()) > 0) {
                      LockSupport.parkNanos(wait);
                    }
                    HttpResponse<Void> r =
                        http.send(endpoints[n & 1], HttpResponse.BodyHandlers.discarding());
                    if (r.statusCode() != 200) {
                      throw new IllegalStateException("status " + r.statusCode());
                    }
                    if (n < mine.length) {
                      mine[n] = System.nanoTime() - due;
                    }
                    n++;
                    due += interval;
                  }
                } catch (IOException | InterruptedException | RuntimeException e) {
                  failure.compareAndSet(
                      null, new IllegalStateException("client " + client + ": " + e, e));
                  return;
                }
                requests.addAndGet(n);
                latencies.set(client, Arrays.copyOf(mine, Math.min(n, mine.length)));
              });
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    if (failure.get() != null) {
      throw failure.get();
    }
    double elapsed = (System.nanoTime() - start) / 1e9;
    return new Result(
        requests.get() / elapsed, latencies.stream().flatMapToLong(Arrays::stream).toArray());
  }

  private static String base(int port) {
    return "http://127.0.0.1:" + port;
  }
}
