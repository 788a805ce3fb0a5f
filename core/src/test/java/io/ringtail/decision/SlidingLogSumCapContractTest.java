package io.ringtail.decision;

import io.ringtail.testkit.SumCapContract;

/** The in-process {@link SumCap} against the backend-neutral contract. */
class SlidingLogSumCapContractTest extends SumCapContract {
  @Override
  protected SumCap newCap(SumCapConfig config) {
    return SumCap.inProcess(config);
  }
}
