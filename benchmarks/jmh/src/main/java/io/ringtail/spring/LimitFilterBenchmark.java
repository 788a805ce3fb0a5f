package io.ringtail.spring;

import io.ringtail.TimeSource;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.http.server.PathContainer;

/**
 * The per-request work of the starter's {@code ringtail.limits} filter for an in-process limit
 * ("100 a minute per API key on /api/**"), apart from the servlet's own header writes: parsing the
 * path, matching it, reading the key, the decision and the header field values. {@code unlimited}
 * is the floor: a request to a path no limit names (parse and match only). Keys cycle over {@code
 * keys} API keys; most requests of a hot key are denied once it has used its 100, so {@code
 * limited} mixes admissions and denials as a client over its limit does.
 *
 * <p>In package {@code io.ringtail.spring} to reach the package-private engine, as the filter does.
 * Per-thread state.
 *
 * <p>Run: {@code java -jar benchmarks/jmh/target/benchmarks.jar LimitFilterBenchmark -t 1} (and
 * {@code -t 2})
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@Threads(1)
public class LimitFilterBenchmark {
  @Param({"sliding-log", "bucketed"})
  public String kind;

  @Param({"1000"})
  public int keys;

  private HttpLimits limits;
  private Request[] requests;
  private int next;

  /** One request as the filter sees it. */
  private record Request(String path, String key) implements LimitedRequest {
    @Override
    public String getMethod() {
      return "GET";
    }

    @Override
    public String getPath() {
      return path;
    }

    @Override
    public String header(String name) {
      return key;
    }

    @Override
    public Object attribute(String name) {
      return null;
    }

    @Override
    public String getRemoteAddress() {
      return "10.0.0.1";
    }

    @Override
    public String getPrincipal() {
      return null;
    }
  }

  @Setup(Level.Trial)
  public void setUp() {
    RingtailLimitProperties.Limit api = new RingtailLimitProperties.Limit();
    api.setPath(List.of("/api/**"));
    api.setKey("header:X-Api-Key");
    api.setLimit(BigDecimal.valueOf(100));
    api.setWindow(Duration.ofMinutes(1));
    api.setKind(
        kind.equals("bucketed")
            ? RingtailLimitProperties.Kind.BUCKETED
            : RingtailLimitProperties.Kind.SLIDING_LOG);
    Map<String, RingtailLimitProperties.Limit> byName = new LinkedHashMap<>();
    byName.put("api", api);
    limits = new HttpLimits(byName, LimitDecisions.inProcess(TimeSource.system()));
    requests = new Request[keys];
    for (int i = 0; i < keys; i++) {
      requests[i] = new Request("/api/orders/" + i, "key-" + i);
    }
  }

  private Request nextRequest() {
    Request r = requests[next];
    next = next + 1 == requests.length ? 0 : next + 1;
    return r;
  }

  @Benchmark
  public Object limited() {
    Request r = nextRequest();
    PathContainer path = PathContainer.parsePath(r.path());
    if (!limits.applies(r.getMethod(), path)) {
      return null;
    }
    HttpLimits.Answer answer = limits.decide(r, path);
    return answer.status() == 0 ? answer.stateField() : answer.policyField() + answer.retryAfter();
  }

  @Benchmark
  public boolean unlimited() {
    Request r = nextRequest();
    return limits.applies(r.getMethod(), PathContainer.parsePath("/open" + r.path()));
  }
}
