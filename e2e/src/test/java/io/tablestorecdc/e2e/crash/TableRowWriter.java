package io.tablestorecdc.e2e.crash;

import io.tablestorecdc.emulator.testkit.EmulatorBed;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The tables crash loops' writer: new rows {@code row-NNNNNN}, one at a time, to the tables in turn
 * (a table added to the list joins the turn), about 50 a second, each recorded as {@code table id}
 * in the set of rows written.
 */
final class TableRowWriter {

    private final EmulatorBed bed;
    private final List<String> tables;
    private final Set<String> written;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean writing;
    private Thread thread;

    TableRowWriter(EmulatorBed bed, List<String> tables, Set<String> written) {
        this.bed = bed;
        this.tables = tables;
        this.written = written;
    }

    void start() {
        writing = true;
        thread =
                new Thread(
                        () -> {
                            long n = 0;
                            try {
                                while (writing) {
                                    String table = tables.get((int) (n % tables.size()));
                                    String id = String.format("row-%06d", n);
                                    bed.put(table, id, n);
                                    written.add(table + " " + id);
                                    n++;
                                    Thread.sleep(20); // the write rate, not a wait
                                }
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            } catch (Throwable e) {
                                failure.set(e);
                            }
                        },
                        "tables-crash-writer");
        thread.start();
    }

    void stop() throws InterruptedException {
        writing = false;
        if (thread != null) {
            thread.join();
        }
        if (failure.get() != null) {
            throw new AssertionError("The writer failed", failure.get());
        }
    }
}
