package io.ringtail.benchmarks.decision;

import io.ringtail.ManualTimeSource;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a hostile amount costs an in-process {@link SumCap} (cap 10.00, scale 2): one {@code tryAdd}
 * of {@code amount} for one key, as a ratio to the floor {@code 10.01} (an ordinary amount above
 * the cap, denied without recording, like the hostile ones).
 *
 * <ul>
 *   <li>{@code 1E+10000000}: above the cap, denied with {@code exceedsCap()};
 *   <li>{@code 1E-30000000} and {@code 0.001}: too many decimals, rejected with an {@link
 *       IllegalArgumentException} (its cost includes building the exception).
 * </ul>
 *
 * Before amounts were judged by exponent first, {@code 1E+10000000} and {@code 1E-30000000} each
 * took seconds of CPU.
 *
 * <p>A JMH state shared by the benchmark thread.
 *
 * <p>Run: {@code java -jar benchmarks/jmh/target/benchmarks.jar HostileAmountBenchmark}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class HostileAmountBenchmark {
  @Param({"10.01", "1E+10000000", "1E-30000000", "0.001"})
  public String amount;

  private BigDecimal value;
  private SumCap cap;

  @Setup
  public void setUp() {
    value = new BigDecimal(amount);
    cap =
        SumCap.inProcess(
            SumCapConfig.builder()
                .cap(new BigDecimal("10.00"))
                .window(Duration.ofMinutes(1))
                .timeSource(new ManualTimeSource())
                .build());
  }

  @Benchmark
  public Object tryAdd() {
    try {
      return cap.tryAdd("k", value);
    } catch (IllegalArgumentException e) {
      return e;
    }
  }
}
