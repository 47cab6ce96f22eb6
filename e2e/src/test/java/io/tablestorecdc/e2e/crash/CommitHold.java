package io.tablestorecdc.e2e.crash;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.CountDownLatch;

/**
 * Makes a child stop inside a commit, so the test can kill it at exactly that point: after the
 * {@code n}-th delivery with changes was logged and written to the replica, before the engine
 * records it as committed. It creates a marker file, then blocks until the JVM is killed.
 */
final class CommitHold {

    private final int atDelivery;
    private final Path marker;
    private int deliveries;

    /** {@code atDelivery} 0 never holds. */
    CommitHold(int atDelivery, Path marker) {
        this.atDelivery = atDelivery;
        this.marker = marker;
    }

    /** Counts a delivery with changes; holds forever if it is the chosen one. */
    void delivered(long unit) {
        deliveries++;
        if (atDelivery == 0 || deliveries != atDelivery) {
            return;
        }
        try {
            // Written aside, then moved into place: the test reads the unit as soon as the
            // marker exists, so it must never see the file created but still empty.
            Path written = marker.resolveSibling(marker.getFileName() + ".tmp");
            Files.writeString(written, Long.toString(unit));
            Files.move(written, marker, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ChildOutput.say("holding inside the commit of unit " + unit + " until killed");
        CountDownLatch never = new CountDownLatch(1);
        while (true) {
            try {
                never.await(); // until SIGKILL
            } catch (InterruptedException e) {
                // keep holding: the test kills this JVM
            }
        }
    }
}
