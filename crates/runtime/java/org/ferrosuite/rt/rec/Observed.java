package org.ferrosuite.rt.rec;

import java.io.File;
import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.FileOutputStream;
import java.io.FileReader;
import java.io.FileWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.io.UnsupportedEncodingException;
import java.nio.charset.Charset;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Calendar;
import java.util.List;
import java.util.Random;
import java.util.Scanner;

/**
 * The environment as a recorded program reads it: the clock, randomness, files and the
 * console, through stand-ins that do what the JDK's API does and tell the {@link Recorder}
 * what came back, so that a carved test can give the call the same environment (the Rust side's
 * {@code instrument::observe} lists the call sites it redirects here).
 *
 * <p>Each stand-in has the descriptor the rewrite expects: a static API's own, an instance
 * method's with the receiver first, a constructor's parameters returning the object. Reading a
 * file to report it never changes it; only regular files are read (a pipe would lose its
 * bytes).
 */
public final class Observed {
    private Observed() {
    }

    // --- The clock: the first reading of each recorded call.

    public static long currentTimeMillis() {
        long t = System.currentTimeMillis();
        EnvRecorder.clock(t);
        return t;
    }

    /** {@code new Date()}: the milliseconds its constructor would read. */
    public static long dateMillis() {
        return currentTimeMillis();
    }

    private static Clock clock() {
        Instant now = Instant.now();
        EnvRecorder.clock(now.toEpochMilli());
        return Clock.fixed(now, ZoneId.systemDefault());
    }

    public static Instant instantNow() {
        return clock().instant();
    }

    public static LocalDateTime localDateTimeNow() {
        return LocalDateTime.now(clock());
    }

    public static LocalDate localDateNow() {
        return LocalDate.now(clock());
    }

    public static LocalTime localTimeNow() {
        return LocalTime.now(clock());
    }

    public static ZonedDateTime zonedDateTimeNow() {
        return ZonedDateTime.now(clock());
    }

    public static OffsetDateTime offsetDateTimeNow() {
        return OffsetDateTime.now(clock());
    }

    public static Calendar calendar() {
        Calendar c = Calendar.getInstance();
        EnvRecorder.clock(c.getTimeInMillis());
        return c;
    }

    // --- Randomness: every value drawn from Math.random, every seed of new Random().

    private static final Random SEEDS = new Random();

    public static double random() {
        double d = Math.random();
        EnvRecorder.randomDouble(d);
        return d;
    }

    /** {@code new Random()}: the seed its constructor would make up. */
    public static long randomSeed() {
        long s;
        synchronized (SEEDS) {
            s = SEEDS.nextLong() ^ System.nanoTime();
        }
        EnvRecorder.seed(s);
        return s;
    }

    // --- java.io.File's questions to the file system.

    public static boolean exists(File f) {
        EnvRecorder.file(f);
        return f.exists();
    }

    public static boolean isFile(File f) {
        EnvRecorder.file(f);
        return f.isFile();
    }

    public static boolean isDirectory(File f) {
        EnvRecorder.file(f);
        return f.isDirectory();
    }

    public static boolean canRead(File f) {
        EnvRecorder.file(f);
        return f.canRead();
    }

    public static long length(File f) {
        EnvRecorder.file(f);
        return f.length();
    }

    public static String[] list(File f) {
        EnvRecorder.file(f);
        return f.list();
    }

    public static File[] listFiles(File f) {
        EnvRecorder.file(f);
        return f.listFiles();
    }

    // --- Constructors that open files.

    public static FileInputStream newFileInputStream(String p) throws FileNotFoundException {
        EnvRecorder.file(p);
        return new FileInputStream(p);
    }

    public static FileInputStream newFileInputStream(File p) throws FileNotFoundException {
        EnvRecorder.file(p);
        return new FileInputStream(p);
    }

    public static FileReader newFileReader(String p) throws FileNotFoundException {
        EnvRecorder.file(p);
        return new FileReader(p);
    }

    public static FileReader newFileReader(File p) throws FileNotFoundException {
        EnvRecorder.file(p);
        return new FileReader(p);
    }

    public static FileOutputStream newFileOutputStream(String p) throws FileNotFoundException {
        EnvRecorder.file(p);
        return new FileOutputStream(p);
    }

    public static FileOutputStream newFileOutputStream(String p, boolean append)
            throws FileNotFoundException {
        EnvRecorder.file(p);
        return new FileOutputStream(p, append);
    }

    public static FileOutputStream newFileOutputStream(File p) throws FileNotFoundException {
        EnvRecorder.file(p);
        return new FileOutputStream(p);
    }

    public static FileOutputStream newFileOutputStream(File p, boolean append)
            throws FileNotFoundException {
        EnvRecorder.file(p);
        return new FileOutputStream(p, append);
    }

    public static FileWriter newFileWriter(String p) throws IOException {
        EnvRecorder.file(p);
        return new FileWriter(p);
    }

    public static FileWriter newFileWriter(String p, boolean append) throws IOException {
        EnvRecorder.file(p);
        return new FileWriter(p, append);
    }

    public static FileWriter newFileWriter(File p) throws IOException {
        EnvRecorder.file(p);
        return new FileWriter(p);
    }

    public static FileWriter newFileWriter(File p, boolean append) throws IOException {
        EnvRecorder.file(p);
        return new FileWriter(p, append);
    }

    public static PrintWriter newPrintWriter(String p) throws FileNotFoundException {
        EnvRecorder.file(p);
        return new PrintWriter(p);
    }

    public static PrintWriter newPrintWriter(File p) throws FileNotFoundException {
        EnvRecorder.file(p);
        return new PrintWriter(p);
    }

    public static PrintWriter newPrintWriter(String p, String cs)
            throws FileNotFoundException, UnsupportedEncodingException {
        EnvRecorder.file(p);
        return new PrintWriter(p, cs);
    }

    public static PrintWriter newPrintWriter(File p, String cs)
            throws FileNotFoundException, UnsupportedEncodingException {
        EnvRecorder.file(p);
        return new PrintWriter(p, cs);
    }

    public static PrintStream newPrintStream(String p) throws FileNotFoundException {
        EnvRecorder.file(p);
        return new PrintStream(p);
    }

    public static PrintStream newPrintStream(File p) throws FileNotFoundException {
        EnvRecorder.file(p);
        return new PrintStream(p);
    }

    public static PrintStream newPrintStream(String p, String cs)
            throws FileNotFoundException, UnsupportedEncodingException {
        EnvRecorder.file(p);
        return new PrintStream(p, cs);
    }

    public static PrintStream newPrintStream(File p, String cs)
            throws FileNotFoundException, UnsupportedEncodingException {
        EnvRecorder.file(p);
        return new PrintStream(p, cs);
    }

    public static Scanner newScanner(File p) throws FileNotFoundException {
        EnvRecorder.file(p);
        return new Scanner(p);
    }

    public static Scanner newScanner(File p, String cs) throws FileNotFoundException {
        EnvRecorder.file(p);
        return new Scanner(p, cs);
    }

    public static Scanner newScanner(Path p) throws IOException {
        EnvRecorder.file(p);
        return new Scanner(p);
    }

    public static Scanner newScanner(Path p, String cs) throws IOException {
        EnvRecorder.file(p);
        return new Scanner(p, cs);
    }

    public static RandomAccessFile newRandomAccessFile(String p, String mode)
            throws FileNotFoundException {
        EnvRecorder.file(p);
        return new RandomAccessFile(p, mode);
    }

    public static RandomAccessFile newRandomAccessFile(File p, String mode)
            throws FileNotFoundException {
        EnvRecorder.file(p);
        return new RandomAccessFile(p, mode);
    }

    // --- java.nio.file.Files on the default file system.

    public static byte[] readAllBytes(Path p) throws IOException {
        EnvRecorder.file(p);
        return Files.readAllBytes(p);
    }

    public static List<String> readAllLines(Path p) throws IOException {
        EnvRecorder.file(p);
        return Files.readAllLines(p);
    }

    public static List<String> readAllLines(Path p, Charset cs) throws IOException {
        EnvRecorder.file(p);
        return Files.readAllLines(p, cs);
    }

    public static java.io.BufferedReader newBufferedReader(Path p) throws IOException {
        EnvRecorder.file(p);
        return Files.newBufferedReader(p);
    }

    public static java.io.BufferedReader newBufferedReader(Path p, Charset cs)
            throws IOException {
        EnvRecorder.file(p);
        return Files.newBufferedReader(p, cs);
    }

    public static InputStream newInputStream(Path p, OpenOption... o) throws IOException {
        EnvRecorder.file(p);
        return Files.newInputStream(p, o);
    }

    public static java.util.stream.Stream<String> lines(Path p) throws IOException {
        EnvRecorder.file(p);
        return Files.lines(p);
    }

    public static java.util.stream.Stream<String> lines(Path p, Charset cs) throws IOException {
        EnvRecorder.file(p);
        return Files.lines(p, cs);
    }

    public static java.util.stream.Stream<Path> list(Path p) throws IOException {
        EnvRecorder.file(p);
        return Files.list(p);
    }

    public static DirectoryStream<Path> newDirectoryStream(Path p) throws IOException {
        EnvRecorder.file(p);
        return Files.newDirectoryStream(p);
    }

    public static boolean exists(Path p, LinkOption... o) {
        EnvRecorder.file(p);
        return Files.exists(p, o);
    }

    public static boolean isRegularFile(Path p, LinkOption... o) {
        EnvRecorder.file(p);
        return Files.isRegularFile(p, o);
    }

    public static boolean isDirectory(Path p, LinkOption... o) {
        EnvRecorder.file(p);
        return Files.isDirectory(p, o);
    }

    public static long size(Path p) throws IOException {
        EnvRecorder.file(p);
        return Files.size(p);
    }

    public static java.io.OutputStream newOutputStream(Path p, OpenOption... o)
            throws IOException {
        EnvRecorder.file(p);
        return Files.newOutputStream(p, o);
    }

    public static java.io.BufferedWriter newBufferedWriter(Path p, Charset cs, OpenOption... o)
            throws IOException {
        EnvRecorder.file(p);
        return Files.newBufferedWriter(p, cs, o);
    }

    public static Path write(Path p, byte[] b, OpenOption... o) throws IOException {
        EnvRecorder.file(p);
        return Files.write(p, b, o);
    }

    public static Path write(Path p, Iterable<? extends CharSequence> lines, Charset cs,
            OpenOption... o) throws IOException {
        EnvRecorder.file(p);
        return Files.write(p, lines, cs, o);
    }

    // --- The console.

    /** What {@code System.in} reads give, told to the recorder; whatever {@code System.in} is now. */
    public static final InputStream in = new InputStream() {
        @Override
        public int read() throws IOException {
            int b = System.in.read();
            if (b >= 0) {
                EnvRecorder.console(new byte[] {(byte) b}, 0, 1);
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = System.in.read(b, off, len);
            if (n > 0) {
                EnvRecorder.console(b, off, n);
            }
            return n;
        }

        @Override
        public int available() throws IOException {
            return System.in.available();
        }

        @Override
        public void close() throws IOException {
            System.in.close();
        }
    };
}
