package io.tablestorecdc.e2e.crash;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The Spark side of the crash loop: every run is {@link SparkCrashChild} on the same checkpoint
 * location, with its own change log file.
 */
final class SparkRuns implements CrashLoop.Engine {

    private final CrashBed bed;
    private final Path checkpoint;
    private int lastRun = -1;

    SparkRuns(CrashBed bed) {
        this.bed = bed;
        this.checkpoint = bed.dir.resolve("spark-checkpoint");
    }

    /** The checkpoint location every run uses. */
    Path checkpoint() {
        return checkpoint;
    }

    /** What run {@code run} logged so far. */
    List<Delivery> deliveries(int run) {
        return ChangeLog.read(changeLog(run), run, 0);
    }

    @Override
    public String name() {
        return "spark";
    }

    @Override
    public ChildJvm launch(int run, int holdAt) throws IOException {
        lastRun = run;
        List<String> args = new ArrayList<>(bed.childArgs());
        args.add("checkpoint=" + checkpoint);
        args.add("changeLog=" + changeLog(run));
        args.add("holdAt=" + holdAt);
        args.add("holdMarker=" + holdMarker(run));
        return ChildJvm.start(
                SparkCrashChild.class, args, bed.childEnv(), bed.dir.resolve(name(run) + ".out"));
    }

    @Override
    public boolean madeProgress(int run) {
        return ChangeLog.read(changeLog(run), run, 0).stream().anyMatch(Delivery::complete);
    }

    @Override
    public List<Delivery> deliveries() {
        List<Delivery> all = new ArrayList<>();
        for (int run = 0; run <= lastRun; run++) {
            all.addAll(ChangeLog.read(changeLog(run), run, 0));
        }
        return all;
    }

    @Override
    public DeliveryAudit.Report audit(Map<String, String> expected) {
        return DeliveryAudit.spark(deliveries(), expected);
    }

    @Override
    public Path holdMarker(int run) {
        return bed.dir.resolve(name(run) + ".hold");
    }

    private Path changeLog(int run) {
        return bed.dir.resolve(name(run) + ".changes");
    }

    private static String name(int run) {
        return String.format("run-%02d", run);
    }
}
