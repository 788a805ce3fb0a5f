package io.ringtail.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class WrkLoadTest {
  /**
   * wrk 4.1.0 on the load target (starter), 5 s after 10 s of warm-up, with the report's script.
   */
  private static final String RUN =
      """
      Running 5s test @ http://127.0.0.1:18765
        2 threads and 16 connections
        Thread Stats   Avg      Stdev     Max   +/- Stdev
          Latency     3.43ms    2.23ms  24.60ms   84.53%
          Req/Sec     2.50k   236.04     3.03k    64.00%
        Latency Distribution
           50%    2.63ms
           75%    4.00ms
           90%    6.25ms
           99%   12.19ms
        24840 requests in 5.00s, 3.18MB read
      Requests/sec:   4963.82
      Transfer/sec:    649.85KB
      """;

  /** wrk 4.1.0 on a path the load target does not have. */
  private static final String NOT_FOUND =
      """
      Running 1s test @ http://127.0.0.1:18765/nope
        1 threads and 2 connections
        Thread Stats   Avg      Stdev     Max   +/- Stdev
          Latency     3.67ms    5.58ms  52.26ms   94.37%
          Req/Sec   777.10    288.85     1.12k    80.00%
        Latency Distribution
           50%    2.17ms
           75%    4.12ms
           90%    6.95ms
           99%   35.71ms
        774 requests in 1.00s, 161.11KB read
        Non-2xx or 3xx responses: 774
      Requests/sec:    773.46
      Transfer/sec:    161.00KB
      """;

  @Test
  void parse_readsTheRequestCountThroughputAndLatencyDistribution() {
    WrkLoad.Result r = WrkLoad.parse(RUN);

    assertThat(r.requests()).isEqualTo(24_840);
    assertThat(r.perSecond()).isCloseTo(4963.82, within(1e-9));
    assertThat(r.p50Micros()).isCloseTo(2630, within(1e-6));
    assertThat(r.p75Micros()).isCloseTo(4000, within(1e-6));
    assertThat(r.p90Micros()).isCloseTo(6250, within(1e-6));
    assertThat(r.p99Micros()).isCloseTo(12_190, within(1e-6));
  }

  @Test
  void parse_readsEachOfWrksTimeUnits() {
    String mixed =
        RUN.replace("50%    2.63ms", "50%  316.00us")
            .replace("90%    6.25ms", "90%    1.50s")
            .replace("99%   12.19ms", "99%    2.00m");

    WrkLoad.Result r = WrkLoad.parse(mixed);

    assertThat(r.p50Micros()).isCloseTo(316, within(1e-6));
    assertThat(r.p75Micros()).isCloseTo(4000, within(1e-6));
    assertThat(r.p90Micros()).isCloseTo(1.5e6, within(1e-3));
    assertThat(r.p99Micros()).isCloseTo(120e6, within(1e-3));
  }

  @Test
  void parse_failsOnResponsesOtherThan2xxOr3xx() {
    assertThatThrownBy(() -> WrkLoad.parse(NOT_FOUND))
        .isInstanceOf(WrkLoad.ErrorAnswers.class)
        .hasMessageContaining("774 responses other than 2xx or 3xx");
  }

  @Test
  void parse_failsOnSocketErrors() {
    String errors =
        RUN.replace(
            "  24840 requests in 5.00s, 3.18MB read\n",
            "  24840 requests in 5.00s, 3.18MB read\n"
                + "  Socket errors: connect 0, read 3, write 0, timeout 12\n");

    assertThatThrownBy(() -> WrkLoad.parse(errors))
        .isInstanceOf(WrkLoad.ErrorAnswers.class)
        .hasMessageContaining("Socket errors: connect 0, read 3, write 0, timeout 12");
  }

  @Test
  void parse_failsOnOutputWithoutTheLatencyDistribution() {
    // wrk run without --latency: no distribution to read
    String noDistribution = RUN.replaceAll("(?s)  Latency Distribution\n.*?99%[^\n]*\n", "");
    assertThat(noDistribution).doesNotContain("50%");

    assertThatThrownBy(() -> WrkLoad.parse(noDistribution))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no 50 % line in a latency distribution");
  }

  @Test
  void parse_failsOnMalformedOutput() {
    assertThatThrownBy(() -> WrkLoad.parse("unable to connect to 127.0.0.1:1 Connection refused"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no request count");
    assertThatThrownBy(
            () -> WrkLoad.parse(RUN.replace("Requests/sec:   4963.82", "Requests/sec: n/a")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no Requests/sec");
    assertThatThrownBy(() -> WrkLoad.parse(RUN.replace("24840 requests", "0 requests")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("completed no request");
  }
}
