import { Link } from '@/components/ui/link';
import { EmptyState } from '@/components/ui/empty-state';
import { Button } from '@/components/ui/button';

/** 404 inside the console (unknown job, run or path). */
export default function NotFound() {
  return (
    <EmptyState
      className="mt-16"
      title="Not found"
      description="This job or run does not exist (it may have been purged), or the link is wrong."
      action={
        <Button asChild>
          <Link href="/">Back to the overview</Link>
        </Button>
      }
    />
  );
}
