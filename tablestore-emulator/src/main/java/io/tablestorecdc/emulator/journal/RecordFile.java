package io.tablestorecdc.emulator.journal;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32;

/**
 * An append-only file of checksummed records, the storage under the emulator's journals.
 *
 * <p>Layout: an 8-byte magic naming the journal kind and version, then records of {@code int
 * length, int crc32(payload), payload}. Every append is fsync'ed before it returns, so a caller
 * acknowledges only what survives a kill -9. A torn or corrupt record at the tail (a crash in the
 * middle of an append) is cut off when the file is opened.
 */
public final class RecordFile implements Closeable {

    private static final int HEADER_BYTES = 8;

    private final FileChannel channel;

    private RecordFile(FileChannel channel) {
        this.channel = channel;
    }

    /** The open file and the payloads it held, oldest first. */
    public record Opened(RecordFile file, List<byte[]> payloads) {}

    /**
     * Opens (creating if needed) {@code dir/fileName}, checks its magic and reads its records.
     *
     * @param magic 8 bytes that name the journal kind and format version
     */
    public static Opened open(Path dir, String fileName, byte[] magic) throws IOException {
        Files.createDirectories(dir);
        FileChannel channel =
                FileChannel.open(
                        dir.resolve(fileName),
                        StandardOpenOption.CREATE,
                        StandardOpenOption.READ,
                        StandardOpenOption.WRITE);
        if (channel.size() == 0) {
            channel.write(ByteBuffer.wrap(magic));
            channel.force(true);
        }
        requireMagic(channel, fileName, magic);
        List<byte[]> payloads = new ArrayList<>();
        long end = readAll(channel, magic.length, payloads);
        channel.truncate(end);
        channel.position(end);
        return new Opened(new RecordFile(channel), payloads);
    }

    /** Appends one record and forces it to disk. */
    public synchronized void append(byte[] payload) throws IOException {
        ByteBuffer record = ByteBuffer.allocate(HEADER_BYTES + payload.length);
        record.putInt(payload.length).putInt(crc32(payload)).put(payload).flip();
        while (record.hasRemaining()) {
            channel.write(record);
        }
        channel.force(false);
    }

    @Override
    public synchronized void close() throws IOException {
        channel.close();
    }

    private static void requireMagic(FileChannel channel, String fileName, byte[] magic)
            throws IOException {
        ByteBuffer found = ByteBuffer.allocate(magic.length);
        channel.read(found, 0);
        if (!Arrays.equals(found.array(), magic)) {
            throw new IOException(
                    "The data directory's "
                            + fileName
                            + " is not a journal this emulator version writes; point --data-dir"
                            + " at an empty or emulator-owned directory");
        }
    }

    private static long readAll(FileChannel channel, long start, List<byte[]> payloads)
            throws IOException {
        long position = start;
        while (true) {
            byte[] payload = readRecord(channel, position);
            if (payload == null) {
                return position;
            }
            payloads.add(payload);
            position += HEADER_BYTES + payload.length;
        }
    }

    /** The payload at {@code position}; null at the end or at a torn / corrupt tail. */
    private static byte[] readRecord(FileChannel channel, long position) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
        if (channel.read(header, position) < HEADER_BYTES) {
            return null;
        }
        header.flip();
        int length = header.getInt();
        int crc = header.getInt();
        if (length < 0 || position + HEADER_BYTES + length > channel.size()) {
            return null;
        }
        ByteBuffer payload = ByteBuffer.allocate(length);
        channel.read(payload, position + HEADER_BYTES);
        return crc32(payload.array()) == crc ? payload.array() : null;
    }

    private static int crc32(byte[] bytes) {
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return (int) crc.getValue();
    }
}
