package io.ringtail.benchmarks.limits;

import io.ringtail.spring.limit.RingtailLimitFilter;
import io.ringtail.spring.limit.RingtailLimitsAutoConfiguration;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.core.env.MapPropertySource;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.web.context.support.AnnotationConfigWebApplicationContext;

/**
 * The per-request work of the starter's {@code ringtail.limits} filter for an in-process limit
 * ("100 a minute per API key on /api/**"): the {@link RingtailLimitFilter} the starter's
 * auto-configuration builds, called as a servlet container calls it: parsing and matching the path,
 * reading the key, the decision and the header field values, handed to the response. {@code
 * unlimited} is the floor: a request to a path no limit names. Keys cycle over {@code keys} API
 * keys; most requests of a hot key are denied once it has used its 100, so {@code limited} mixes
 * admissions and denials as a client over its limit does.
 *
 * <p>Public API only, as an application reaches the filter: the auto-configuration in a web
 * application context. The requests are spring-test's {@code MockHttpServletRequest} (headers and
 * attributes in maps, as a container's); the response keeps only the status and drops the header
 * fields and body the filter writes, so that the container's own header writes are left out, as
 * they cost the same with or without a limit. Per-thread state.
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

  private AnnotationConfigWebApplicationContext context;
  private RingtailLimitFilter filter;
  private MockHttpServletRequest[] limited;
  private MockHttpServletRequest[] open;
  private final Response response = new Response();
  private final FilterChain chain = (request, response) -> {};
  private int next;

  @Setup(Level.Trial)
  public void setUp() {
    context = new AnnotationConfigWebApplicationContext();
    context
        .getEnvironment()
        .getPropertySources()
        .addFirst(
            new MapPropertySource(
                "benchmark",
                Map.of(
                    "ringtail.limits.api.path", "/api/**",
                    "ringtail.limits.api.key", "header:X-Api-Key",
                    "ringtail.limits.api.limit", "100",
                    "ringtail.limits.api.window", "1m",
                    "ringtail.limits.api.kind", kind,
                    "ringtail.metrics.enabled", "false")));
    context.register(RingtailLimitsAutoConfiguration.class);
    context.refresh();
    filter = context.getBean(RingtailLimitFilter.class);
    limited = new MockHttpServletRequest[keys];
    open = new MockHttpServletRequest[keys];
    for (int i = 0; i < keys; i++) {
      limited[i] = request("/api/orders/" + i, "key-" + i);
      open[i] = request("/open/api/orders/" + i, "key-" + i);
    }
  }

  private static MockHttpServletRequest request(String path, String key) {
    MockHttpServletRequest r = new MockHttpServletRequest("GET", path);
    r.setRemoteAddr("10.0.0.1");
    r.addHeader("X-Api-Key", key);
    return r;
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    context.close();
  }

  private int nextIndex() {
    int i = next;
    next = i + 1 == keys ? 0 : i + 1;
    return i;
  }

  private int filter(MockHttpServletRequest request) throws ServletException, IOException {
    response.status = 200;
    response.written = 0;
    filter.doFilter(request, response, chain);
    return response.status + response.written;
  }

  @Benchmark
  public int limited() throws ServletException, IOException {
    return filter(limited[nextIndex()]);
  }

  @Benchmark
  public int unlimited() throws ServletException, IOException {
    return filter(open[nextIndex()]);
  }

  /** A response that keeps the status and the length of what it was given, and drops the rest. */
  private static final class Response extends HttpServletResponseWrapper {
    int status;
    int written;
    private final ServletOutputStream body =
        new ServletOutputStream() {
          @Override
          public void write(int b) {
            written++;
          }

          @Override
          public void write(byte[] b, int off, int len) {
            written += len;
          }

          @Override
          public boolean isReady() {
            return true;
          }

          @Override
          public void setWriteListener(WriteListener listener) {}
        };

    Response() {
      super(new MockHttpServletResponse());
    }

    @Override
    public void setHeader(String name, String value) {
      written += value.length();
    }

    @Override
    public void setStatus(int sc) {
      status = sc;
    }

    @Override
    public int getStatus() {
      return status;
    }

    @Override
    public void setContentType(String type) {}

    @Override
    public void setContentLength(int len) {}

    @Override
    public ServletOutputStream getOutputStream() {
      return body;
    }
  }
}
