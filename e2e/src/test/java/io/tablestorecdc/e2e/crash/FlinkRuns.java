package io.tablestorecdc.e2e.crash;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * The Flink side of the crash loop: every run is {@link FlinkCrashChild} with its own checkpoint
 * directory, restored from the latest retained checkpoint found on disk (that of the newest run
 * that completed one), with one change log file per sink subtask.
 */
final class FlinkRuns implements CrashLoop.Engine {

    private static final int PARALLELISM = 2;

    /**
     * A retained checkpoint a run was restored from.
     *
     * @param producer the run that wrote it
     * @param id its checkpoint id
     * @param path its {@code chk-N} directory
     */
    record Restore(int producer, long id, Path path) {}

    private final CrashBed bed;
    private final Map<Integer, Restore> restores = new HashMap<>();
    private int lastRun = -1;

    FlinkRuns(CrashBed bed) {
        this.bed = bed;
    }

    @Override
    public String name() {
        return "flink";
    }

    @Override
    public ChildJvm launch(int run, int holdAt) throws IOException {
        return launch(run, holdAt, List.of());
    }

    /** {@link #launch(int, int)} with more {@code key=value} arguments for the child. */
    ChildJvm launch(int run, int holdAt, List<String> more) throws IOException {
        lastRun = run;
        List<String> args = new ArrayList<>(bed.childArgs());
        args.addAll(more);
        args.add("checkpoints=" + checkpoints(run));
        args.add("changeLog=" + bed.dir.resolve(name(run)));
        args.add("holdAt=" + holdAt);
        args.add("holdMarker=" + holdMarker(run));
        latestRetainedBefore(run)
                .ifPresent(
                        restore -> {
                            restores.put(run, restore);
                            args.add("restore=" + restore.path().toUri());
                        });
        return ChildJvm.start(
                FlinkCrashChild.class, args, bed.childEnv(), bed.dir.resolve(name(run) + ".out"));
    }

    /** A run has made progress once it completed a checkpoint: a restore can start there. */
    @Override
    public boolean madeProgress(int run) {
        return latestIn(run).isPresent();
    }

    @Override
    public List<Delivery> deliveries() {
        List<Delivery> all = new ArrayList<>();
        for (int run = 0; run <= lastRun; run++) {
            all.addAll(deliveries(run));
        }
        return all;
    }

    /** Each run up to the checkpoint the next run restored from; the last run whole. */
    @Override
    public DeliveryAudit.Report audit(Map<String, String> expected) {
        Map<Integer, OptionalLong> committed = new HashMap<>();
        for (int run = 0; run < lastRun; run++) {
            Restore next = restores.get(run + 1);
            committed.put(
                    run,
                    next != null && next.producer() == run
                            ? OptionalLong.of(next.id())
                            : OptionalLong.empty());
        }
        committed.put(lastRun, OptionalLong.of(Long.MAX_VALUE));
        return DeliveryAudit.flink(deliveries(), committed, expected);
    }

    @Override
    public Path holdMarker(int run) {
        return bed.dir.resolve(name(run) + ".hold");
    }

    /** What run {@code run}'s sink subtasks logged so far. */
    List<Delivery> deliveries(int run) {
        List<Delivery> all = new ArrayList<>();
        for (int subtask = 0; subtask < PARALLELISM; subtask++) {
            Path log = bed.dir.resolve(name(run) + "-sink-" + subtask + ".changes");
            all.addAll(ChangeLog.read(log, run, subtask));
        }
        return all;
    }

    Optional<Restore> restoreOf(int run) {
        return Optional.ofNullable(restores.get(run));
    }

    private Optional<Restore> latestRetainedBefore(int run) {
        for (int producer = run - 1; producer >= 0; producer--) {
            Optional<Restore> latest = latestIn(producer);
            if (latest.isPresent()) {
                return latest;
            }
        }
        return Optional.empty();
    }

    /** The newest {@code <dir>/<job id>/chk-N} of {@code run} whose metadata is written. */
    Optional<Restore> latestIn(int run) {
        Path dir = checkpoints(run);
        if (!Files.isDirectory(dir)) {
            return Optional.empty();
        }
        // A running job deletes subsumed checkpoints while we look: skip what vanished.
        try (Stream<Path> files = Files.find(dir, 3, (p, a) -> isCheckpoint(p))) {
            return files.filter(p -> Files.exists(p.resolve("_metadata")))
                    .map(p -> new Restore(run, checkpointId(p), p))
                    .max((a, b) -> Long.compare(a.id(), b.id()));
        } catch (NoSuchFileException | UncheckedIOException e) {
            return Optional.empty(); // asked again on the next poll
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean isCheckpoint(Path p) {
        return p.getFileName().toString().startsWith("chk-");
    }

    private static long checkpointId(Path chk) {
        return Long.parseLong(chk.getFileName().toString().substring("chk-".length()));
    }

    private Path checkpoints(int run) {
        return bed.dir.resolve("flink-checkpoints").resolve(name(run));
    }

    private static String name(int run) {
        return String.format("run-%02d", run);
    }
}
