package io.ringtail.keyed;

/** The in-process {@link SumCap} against the backend-neutral contract. */
class SlidingLogSumCapContractTest extends SumCapContract {
  @Override
  protected SumCap newCap(SumCapConfig config) {
    return SumCap.inProcess(config);
  }
}
