// SPDX-License-Identifier: Apache-2.0
// A Java service using Apache Curator's lock recipes, contending with distlock on the same
// ZooKeeper path (Debian's Curator jars). The interop tests run it beside distlock processes.
//
//   CuratorContender --connect HOSTS --path /distlock/<type>/<key>
//                    --mode mutex|read|write|semaphore|latch [--max-leases N] [--leases N]
//                    [--iterations N] [--threads N] [--counter FILE] [--intervals FILE]
//                    [--pause-us N] [--session-timeout-ms N] [--go FILE] [--hold]
//
// Loop (default): each thread, N times: acquire (InterProcessMutex, the read or write side
// of InterProcessReadWriteLock, or one lease of an InterProcessSemaphoreV2 of --max-leases)
// -> work -> release. The work on the counter file ("<count> <fence>", as distlock's
// counter_worker writes it):
//   mutex, write: read it, pause up to --pause-us, write count + 1 (the fence kept as is);
//   read:         read it, pause, read it again: a change means a writer held the lock too;
//   semaphore:    pause only (up to N holders share it; no counter).
// With --intervals, every hold appends "<R|W|P> <start-ns> <end-ns> curator-<pid>" (monotonic
// clock, System.nanoTime(), which is CLOCK_MONOTONIC on Linux like C++'s steady_clock).
// Prints "ready" once connected and "done <holds>" at the end. With --go, the loop starts only
// once FILE exists (a start line for several processes, checked every millisecond). Exit code 0: all went well;
// 2: a reader saw the counter change during its hold; 1: an error (on stderr).
//
// --hold: acquires once (waiting as long as it takes), prints "acquired <our node> <ns>" (ns:
// System.nanoTime() once acquire() returned) and holds the lock until SIGTERM, then releases
// it (a shutdown hook) and exits. A semaphore takes --leases leases (default 1), one after the
// other, and prints their nodes separated by commas. --mode latch (with --hold only): a
// LeaderLatch on the path, with the participant id "curator-<pid>": "acquired" once it leads,
// and on SIGTERM it closes the latch (resigns).
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.retry.ExponentialBackoffRetry;

public final class CuratorContender {
  private String connect;
  private String path;
  private String mode = "mutex";
  private int maxLeases = 1;
  private int leases = 1;
  private int iterations = 10;
  private int threads = 1;
  private Path counter;
  private Path intervals;
  private long pauseMicros = 1000;
  private int sessionTimeoutMs = 10000;
  private boolean hold;
  private Path go;

  public static void main(String[] args) {
    CuratorContender contender = new CuratorContender();
    try {
      contender.parse(args);
      System.exit(contender.run());
    } catch (IllegalArgumentException e) {
      System.err.println("CuratorContender: " + e.getMessage());
      System.exit(64);
    } catch (Exception e) {
      System.err.println("CuratorContender: " + e);
      e.printStackTrace();
      System.exit(1);
    }
  }

  private void parse(String[] args) {
    for (int i = 0; i < args.length; ++i) {
      String arg = args[i];
      if (arg.equals("--hold")) {
        hold = true;
        continue;
      }
      if (i + 1 >= args.length) throw new IllegalArgumentException(arg + " needs a value");
      String value = args[++i];
      switch (arg) {
        case "--connect": connect = value; break;
        case "--path": path = value; break;
        case "--mode": mode = value; break;
        case "--max-leases": maxLeases = Integer.parseInt(value); break;
        case "--leases": leases = Integer.parseInt(value); break;
        case "--iterations": iterations = Integer.parseInt(value); break;
        case "--threads": threads = Integer.parseInt(value); break;
        case "--counter": counter = Paths.get(value); break;
        case "--intervals": intervals = Paths.get(value); break;
        case "--pause-us": pauseMicros = Long.parseLong(value); break;
        case "--session-timeout-ms": sessionTimeoutMs = Integer.parseInt(value); break;
        case "--go": go = Paths.get(value); break;
        default: throw new IllegalArgumentException("unknown option " + arg);
      }
    }
    if (connect == null || path == null) {
      throw new IllegalArgumentException("--connect and --path are required");
    }
    if (!mode.equals("mutex") && !mode.equals("read") && !mode.equals("write")
        && !mode.equals("semaphore") && !mode.equals("latch")) {
      throw new IllegalArgumentException("--mode must be mutex, read, write, semaphore or latch");
    }
    if (mode.equals("latch") && !hold) {
      throw new IllegalArgumentException("--mode latch needs --hold");
    }
    if (!hold && counter == null && !semaphore()) {
      throw new IllegalArgumentException("--counter is required");
    }
  }

  private boolean semaphore() {
    return mode.equals("semaphore");
  }

  // One lease of an InterProcessSemaphoreV2, held and returned as a lock is.
  private static final class SemaphoreLease implements InterProcessLock {
    private final InterProcessSemaphoreV2 semaphore;
    private volatile Lease lease;

    SemaphoreLease(CuratorFramework client, String path, int maxLeases) {
      semaphore = new InterProcessSemaphoreV2(client, path, maxLeases);
    }

    @Override
    public void acquire() throws Exception {
      lease = semaphore.acquire();
    }

    @Override
    public boolean acquire(long time, TimeUnit unit) throws Exception {
      lease = semaphore.acquire(time, unit);
      return lease != null;
    }

    @Override
    public void release() {
      semaphore.returnLease(lease);
      lease = null;
    }

    @Override
    public boolean isAcquiredInThisProcess() {
      return lease != null;
    }

    String nodeName() {
      return lease != null ? lease.getNodeName() : "?";
    }
  }

  private InterProcessLock newLock(CuratorFramework client) {
    if (semaphore()) return new SemaphoreLease(client, path, maxLeases);
    if (mode.equals("mutex")) return new InterProcessMutex(client, path);
    InterProcessReadWriteLock lock = new InterProcessReadWriteLock(client, path);
    return mode.equals("read") ? lock.readLock() : lock.writeLock();
  }

  // The node this lock instance created: ours is the only one whose owner is our session
  // and that did not exist before we acquired.
  private static String ourNode(CuratorFramework client, InterProcessLock lock) throws Exception {
    Collection<String> nodes = lock instanceof InterProcessMutex
        ? ((InterProcessMutex) lock).getParticipantNodes()
        : List.of();
    long session = client.getZookeeperClient().getZooKeeper().getSessionId();
    for (String node : nodes) {
      org.apache.zookeeper.data.Stat stat = client.checkExists().forPath(node);
      if (stat != null && stat.getEphemeralOwner() == session) return node;
    }
    return "?";
  }

  private int run() throws Exception {
    CuratorFramework client = CuratorFrameworkFactory.builder()
        .connectString(connect)
        .sessionTimeoutMs(sessionTimeoutMs)
        .connectionTimeoutMs(Math.min(sessionTimeoutMs, 15000))
        .retryPolicy(new ExponentialBackoffRetry(50, 10, 1000))
        .build();
    client.start();
    if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
      throw new IOException("could not connect to " + connect);
    }
    System.out.println("ready");
    System.out.flush();

    if (hold) return holdUntilTerminated(client);
    if (go != null) {
      while (!Files.exists(go)) Thread.sleep(1);
    }

    AtomicInteger holds = new AtomicInteger();
    AtomicBoolean violation = new AtomicBoolean();
    AtomicBoolean failed = new AtomicBoolean();
    List<Thread> workers = new ArrayList<>();
    String who = "curator-" + ProcessHandle.current().pid();
    for (int t = 0; t < threads; ++t) {
      Thread worker = new Thread(() -> {
        InterProcessLock lock = newLock(client);
        try {
          for (int i = 0; i < iterations; ++i) {
            if (!lock.acquire(120, TimeUnit.SECONDS)) {
              throw new IOException("not acquired within 120 s");
            }
            long start = System.nanoTime();
            try {
              if (!work()) {
                violation.set(true);
                System.err.println("CuratorContender: the counter changed during a read hold");
              }
            } finally {
              long end = System.nanoTime();
              if (intervals != null) {
                String kind = semaphore() ? "P " : mode.equals("read") ? "R " : "W ";
                String line = kind + start + " " + end + " " + who + "\n";
                Files.write(intervals, line.getBytes(StandardCharsets.US_ASCII),
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
              }
              lock.release();
            }
            holds.incrementAndGet();
          }
        } catch (Exception e) {
          System.err.println("CuratorContender: " + e);
          failed.set(true);
        }
      });
      workers.add(worker);
      worker.start();
    }
    for (Thread worker : workers) worker.join();
    client.close();
    System.out.println("done " + holds.get());
    System.out.flush();
    if (failed.get()) return 1;
    return violation.get() ? 2 : 0;
  }

  private int holdUntilTerminated(CuratorFramework client) throws Exception {
    if (mode.equals("latch")) return leadUntilTerminated(client);
    // Curator's locks belong to the thread that acquired them: this thread acquires, waits
    // for SIGTERM (the shutdown hook), releases, and lets the hook return.
    List<InterProcessLock> locks = new ArrayList<>();
    for (int i = 0; i < (semaphore() ? leases : 1); ++i) locks.add(newLock(client));
    CountDownLatch terminate = new CountDownLatch(1);
    CountDownLatch released = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      terminate.countDown();
      try {
        released.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }));
    List<String> nodes = new ArrayList<>();
    for (InterProcessLock lock : locks) {
      lock.acquire();
      nodes.add(lock instanceof SemaphoreLease
          ? ((SemaphoreLease) lock).nodeName() : ourNode(client, lock));
    }
    long acquiredAt = System.nanoTime();
    System.out.println("acquired " + String.join(",", nodes) + " " + acquiredAt);
    System.out.flush();
    terminate.await();
    for (InterProcessLock lock : locks) {
      try {
        lock.release();
      } catch (Exception e) {
        System.err.println("CuratorContender: release: " + e);
      }
    }
    client.close();
    released.countDown();
    return 0;
  }

  // --mode latch --hold: campaigns with a LeaderLatch, says when it leads, and resigns (closes
  // the latch) on SIGTERM.
  private int leadUntilTerminated(CuratorFramework client) throws Exception {
    LeaderLatch latch = new LeaderLatch(client, path, "curator-" + ProcessHandle.current().pid());
    CountDownLatch terminate = new CountDownLatch(1);
    CountDownLatch resigned = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      terminate.countDown();
      try {
        resigned.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }));
    latch.start();
    latch.await();
    long ledAt = System.nanoTime();
    System.out.println("acquired " + latch.getId() + " " + ledAt);
    System.out.flush();
    terminate.await();
    latch.close();
    client.close();
    resigned.countDown();
    return 0;
  }

  // One hold's work on the counter file. False: a reader saw the count change.
  private boolean work() throws Exception {
    if (semaphore()) {
      pause();
      return true;
    }
    long[] before = readCounter();
    pause();
    if (mode.equals("read")) {
      long[] after = readCounter();
      return after[0] == before[0];
    }
    String text = (before[0] + 1) + " " + before[1] + "\n";
    Files.write(counter, text.getBytes(StandardCharsets.US_ASCII), StandardOpenOption.CREATE,
        StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
    return true;
  }

  private void pause() throws InterruptedException {
    long pause = pauseMicros > 0 ? ThreadLocalRandom.current().nextLong(pauseMicros + 1) : 0;
    if (pause > 0) TimeUnit.MICROSECONDS.sleep(pause);
  }

  private long[] readCounter() throws IOException {
    String text = new String(Files.readAllBytes(counter), StandardCharsets.US_ASCII).trim();
    if (text.isEmpty()) return new long[] {0, 0};
    String[] parts = text.split("\\s+");
    return new long[] {Long.parseLong(parts[0]), parts.length > 1 ? Long.parseLong(parts[1]) : 0};
  }
}
