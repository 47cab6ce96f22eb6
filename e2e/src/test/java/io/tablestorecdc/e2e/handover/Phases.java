package io.tablestorecdc.e2e.handover;

/** Prints when each phase of a long test was reached, so a slow run shows where time went. */
public final class Phases {

    private final String test;
    private final long start = System.nanoTime();

    public Phases(String test) {
        this.test = test;
    }

    public void reached(String phase) {
        System.out.printf("[%s +%.1fs] %s%n", test, (System.nanoTime() - start) / 1e9, phase);
    }
}
