"""Write the built-in evaluation samples (made up for this project; the JSON ships in the package).

    .venv/bin/python scripts/make_eval_samples.py
"""

import datetime as dt
import json
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "memoryos_core" / "evaluation" / "samples"
M, T = "Maya", "Tom"
sessions = [
 ("9:12 am on 4 March, 2024", [
  (M, "Guess what, I start a new job at the Crumb & Co bakery on Monday!"),
  (T, "Congratulations! Early mornings then?"),
  (M, "Yes, the shift begins at five, I will be on the bread ovens."),
  (T, "How is Pixel taking the news?"),
  (M, "Pixel, my grey cat, only cares that breakfast now comes at four."),
  (T, "Ha, cats and their schedules."),
  (M, "I also signed up for a Portuguese course on Thursday evenings."),
  (T, "Why Portuguese?"),
  (M, "My aunt Rosa lives in Lisbon and I want to visit her this summer."),
  (T, "That sounds like a plan."),
 ]),
 ("6:40 pm on 17 March, 2024", [
  (T, "How was the first week at the bakery?"),
  (M, "Tiring but fun. The head baker, Idris, taught me to shape baguettes."),
  (T, "Did you bring any home?"),
  (M, "A whole bag of misshapen ones, the neighbours were happy."),
  (T, "Any plans for the weekend?"),
  (M, "A bike ride along the canal to Millbrook, about forty kilometres."),
  (T, "On the old blue bike?"),
  (M, "No, I sold that one. I bought a green gravel bike last month."),
  (T, "Nice upgrade."),
 ]),
 ("8:05 pm on 2 April, 2024", [
  (M, "Pixel was sick all weekend, I had to take him to the vet."),
  (T, "Oh no, is he alright?"),
  (M, "The vet, Dr Alvarez, said he ate a piece of a rubber band."),
  (T, "Poor thing. What now?"),
  (M, "Soft food for a week and a check-up on the fifteenth."),
  (T, "Keep me posted."),
  (M, "Also my Portuguese teacher says my accent is improving."),
  (T, "Obrigado! That is all I know."),
 ]),
 ("7:30 am on 21 April, 2024", [
  (T, "Up early as always?"),
  (M, "Always. Big news: Idris put me in charge of the sourdough starter."),
  (T, "That is a promotion, right?"),
  (M, "Sort of, I now run the weekend sourdough bake on my own."),
  (T, "Do you have a name for the starter?"),
  (M, "We call it Gerald. It is older than me, from 1989."),
  (T, "Gerald the starter, I love it."),
  (M, "Pixel's check-up went fine, by the way, he is back to normal."),
 ]),
 ("5:15 pm on 12 May, 2024", [
  (M, "I booked my flights to Lisbon for the second of July."),
  (T, "How long will you stay?"),
  (M, "Two weeks with aunt Rosa in Alfama."),
  (T, "Who looks after Pixel?"),
  (M, "My neighbour Hana will feed him, she loves cats."),
  (T, "Perfect. Will you bake while you are there?"),
  (M, "Rosa wants me to teach her how to make a sourdough loaf."),
  (T, "Take some of Gerald with you!"),
  (M, "Ha, I will dry a bit of the starter and pack it."),
 ]),
 ("10:00 am on 23 July, 2024", [
  (T, "Welcome back! How was Lisbon?"),
  (M, "Wonderful. We walked up to the castle every evening."),
  (T, "And the Portuguese?"),
  (M, "I ordered pastel de nata in Portuguese and nobody switched to English!"),
  (T, "Did the sourdough lesson work?"),
  (M, "Rosa's first loaf was flat, the second was perfect."),
  (T, "And Pixel survived without you?"),
  (M, "Hana sent me photos every day, he slept on her sofa."),
  (T, "So what's next?"),
  (M, "I want to enter the city bread competition in October."),
 ]),
 ("6:20 pm on 3 September, 2024", [
  (M, "I registered for the bread competition, the category is rye."),
  (T, "Rye, not sourdough?"),
  (M, "Idris thinks my rye is more original. I use caraway and honey."),
  (T, "Sounds delicious."),
  (M, "I rode the gravel bike to the mill in Millbrook to buy the rye flour."),
  (T, "Forty kilometres for flour, that is dedication."),
  (M, "And I finished the Portuguese course, I passed the A2 exam."),
  (T, "Parabens!"),
 ]),
]
chat = [
 ("the weather", ["It rained all day again, the garden is a swamp.", "At least the plants are happy.",
   "I bought new wellies, yellow ones.", "Very practical.", "The forecast says sun on Sunday.",
   "Fingers crossed.", "I might clean the windows if it is dry.", "Ambitious!"]),
 ("a film", ["Did you watch the new space film?", "Not yet, is it good?",
   "The music is great but the ending is confusing.", "I will wait for the reviews.",
   "The main actor was in that detective series too.", "Oh, the one set in Oslo?",
   "Exactly, with the grumpy inspector.", "I loved that show."]),
 ("cooking", ["I tried a new curry recipe with lentils.", "Spicy?",
   "Medium, I added coconut milk to calm it down.", "Sounds good.",
   "I made too much, the freezer is full now.", "Bring some to the next picnic.",
   "Deal, if the weather allows a picnic.", "We will see."]),
 ("a podcast", ["I started a podcast about the history of maps.", "Listening or making?",
   "Listening, sorry. It is very calming on the bus.", "Any favourite episode?",
   "The one about medieval sea charts.", "I will try it tonight.",
   "Start from the first episode though.", "Noted."]),
 ("the city", ["They are closing the main bridge for repairs.", "For how long?",
   "Three months, traffic will be terrible.", "Good thing you cycle.",
   "The detour adds ten minutes.", "Not too bad.", "Unless it rains, which it always does.",
   "True."]),
 ("a concert", ["Tickets for the jazz festival go on sale tomorrow.", "Are you going?",
   "Maybe the Saturday night with the big band.", "That sounds fun.",
   "Prices went up a lot this year.", "Everything did.", "I will decide tomorrow.",
   "Let me know."]),
 ("gardening", ["My tomato seedlings finally sprouted on the windowsill.", "How many?",
   "Twelve, more than I can plant.", "Give some away.", "Good idea, the neighbours might want some.",
   "Everyone likes tomatoes.", "Except my brother.", "Strange man."]),
 ("a museum", ["The science museum has a new exhibition on volcanoes.", "Is it good for adults?",
   "Yes, there is a room that shakes like an earthquake.", "That sounds scary.",
   "It is fun, you should come.", "Maybe next month.", "They open late on Fridays.",
   "Good to know."]),
 ("football", ["The local team won on penalties yesterday.", "I saw the highlights.",
   "The goalkeeper was amazing.", "He saved three in a row.", "The crowd went wild.",
   "I can imagine.", "Next match is away.", "I will watch it on TV."]),
 ("a birthday", ["It is my cousin's birthday next week.", "Any gift ideas?",
   "She likes puzzles, maybe a big jigsaw.", "A thousand pieces?", "At least.",
   "That will keep her busy.", "For a whole winter.", "Perfect gift then."]),
]
chat_dates = ["11:30 am on 9 March, 2024", "8:00 pm on 24 March, 2024", "1:15 pm on 9 April, 2024",
              "9:45 pm on 28 April, 2024", "12:10 pm on 19 May, 2024", "7:00 pm on 2 June, 2024",
              "4:30 pm on 16 June, 2024", "6:00 pm on 4 August, 2024", "3:20 pm on 18 August, 2024",
              "8:40 pm on 12 September, 2024"]
after = [0, 1, 2, 3, 4, 4, 4, 5, 5, 6]  # a chat session follows these story sessions
order = []  # (date, turns, story index or None)
for i, (date, turns) in enumerate(sessions):
    order.append((date, turns, i))
    for k, a in enumerate(after):
        if a == i:
            topic, lines = chat[k]
            order.append((chat_dates[k], [(M if n % 2 == 0 else T, t) for n, t in enumerate(lines)], None))
order.sort(key=lambda o: dt.datetime.strptime(o[0], "%I:%M %p on %d %B, %Y"))
number = {o[2]: n for n, o in enumerate(order, start=1) if o[2] is not None}
def ev(ids):
    out = []
    for d in ids:
        s, t = d[1:].split(":")
        out.append(f"D{number[int(s) - 1]}:{t}")
    return out
sessions = [(d, t) for d, t, _ in order]
conv = {"speaker_a": M, "speaker_b": T}
for s, (date, turns) in enumerate(sessions, start=1):
    conv[f"session_{s}_date_time"] = date
    conv[f"session_{s}"] = [{"speaker": sp, "dia_id": f"D{s}:{k}", "text": text}
                            for k, (sp, text) in enumerate(turns, start=1)]
qa = [
 ("Where does Maya work?", "At the Crumb & Co bakery", ["D1:1"], 4),
 ("What is the name of Maya's cat?", "Pixel", ["D1:5"], 4),
 ("Who taught Maya to shape baguettes?", "Idris, the head baker", ["D2:2"], 4),
 ("What colour is Maya's new bike?", "Green", ["D2:8"], 4),
 ("Why did Pixel have to go to the vet?", "He ate a piece of a rubber band", ["D3:1", "D3:3"], 4),
 ("What is the sourdough starter called?", "Gerald", ["D4:6"], 4),
 ("Who fed Pixel while Maya was in Lisbon?", "Her neighbour Hana", ["D5:5", "D6:8"], 1),
 ("Why is Maya learning Portuguese?", "To visit her aunt Rosa in Lisbon", ["D1:7", "D1:9"], 1),
 ("What did Maya teach her aunt in Lisbon?", "How to make a sourdough loaf", ["D5:7", "D6:6"], 1),
 ("Which bread does Maya enter in the competition, and what is in it?",
  "Rye, with caraway and honey", ["D7:1", "D7:3"], 1),
 ("Where did Maya ride her gravel bike?", "Along the canal to Millbrook, and to the mill there",
  ["D2:6", "D7:5"], 1),
 ("When did Maya start the job at the bakery?", "The Monday after 4 March 2024", ["D1:1"], 2),
 ("When did Maya fly to Lisbon?", "On 2 July 2024", ["D5:1"], 2),
 ("When was Pixel's check-up after the vet visit?", "On 15 April 2024", ["D3:5"], 2),
 ("When did Maya pass the Portuguese exam?", "By early September 2024", ["D7:7"], 2),
 ("How old was the sourdough starter in 2024?", "About 35 years (from 1989)", ["D4:6"], 2),
 ("Would Maya enjoy an early morning job?", "Probably yes; she starts at five and likes it",
  ["D1:3", "D2:2"], 3),
 ("Is Maya likely to keep cycling long distances?", "Yes, she rides forty kilometres for flour",
  ["D2:6", "D7:5"], 3),
 ("What kind of pet would Maya's neighbour Hana get?", "A cat; she loves cats", ["D5:5"], 3),
 ("What did the vet Dr Alvarez prescribe for Maya's dog?", "Not mentioned", [], 5),
]
doc = [{"sample_id": "sample-maya", "conversation": conv,
        "qa": [{"question": q, "answer": a, "evidence": ev(e), "category": c} for q, a, e, c in qa]}]
OUT.mkdir(parents=True, exist_ok=True)
(OUT / "locomo_sample.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")

def turn(role, content, has=None):
    t = {"role": role, "content": content}
    if has is not None:
        t["has_answer"] = has
    return t
filler = [
 ("Can you suggest a stretch for a stiff neck?", "Try slow neck rolls and chin tucks, ten each."),
 ("What is a good book about the ocean?", "The Sea Around Us by Rachel Carson is a classic."),
 ("How long do I boil an egg for a runny yolk?", "About six minutes from boiling water."),
 ("Recommend a board game for four players.", "Ticket to Ride works well with four."),
 ("How do I get rid of fruit flies?", "A bowl of vinegar with a drop of soap traps them."),
 ("What is the capital of Canada?", "Ottawa."),
]
def fill(n):
    a, b = filler[n % len(filler)]
    return [turn("user", a), turn("assistant", b)]
lme = [
 {"question_id": "sample-lme-piano", "question_type": "single-session-user",
  "question": "What instrument did I start learning?", "answer": "The piano",
  "question_date": "2024/03/30 (Sat) 10:00",
  "haystack_session_ids": ["f1", "ans-piano", "f2", "f3"],
  "haystack_dates": ["2024/03/01 (Fri) 09:00", "2024/03/05 (Tue) 19:30",
                     "2024/03/12 (Tue) 08:15", "2024/03/20 (Wed) 21:00"],
  "answer_session_ids": ["ans-piano"],
  "haystack_sessions": [fill(0),
                        [turn("user", "I started piano lessons with a teacher called Mr Brandt.", True),
                         turn("assistant", "Lovely! Practise scales for ten minutes a day.")],
                        fill(1), fill(2)]},
 {"question_id": "sample-lme-move", "question_type": "knowledge-update",
  "question": "Which city do I live in now?", "answer": "Utrecht",
  "question_date": "2024/06/10 (Mon) 12:00",
  "haystack_session_ids": ["ans-old", "f4", "ans-new", "f5"],
  "haystack_dates": ["2024/01/08 (Mon) 18:00", "2024/02/14 (Wed) 07:45",
                     "2024/05/02 (Thu) 20:10", "2024/05/20 (Mon) 13:30"],
  "answer_session_ids": ["ans-new"],
  "haystack_sessions": [[turn("user", "I live in Leiden and cycle to work every day."),
                         turn("assistant", "Leiden is great for cycling.")],
                        fill(3),
                        [turn("user", "We finally moved to Utrecht last weekend!", True),
                         turn("assistant", "Congratulations on the move to Utrecht.")],
                        fill(4)]},
 {"question_id": "sample-lme-trip", "question_type": "temporal-reasoning",
  "question": "How many days before my birthday did I book the train to Vienna?",
  "answer": "Ten days", "question_date": "2024/09/01 (Sun) 09:00",
  "haystack_session_ids": ["ans-book", "f6", "ans-bday"],
  "haystack_dates": ["2024/08/05 (Mon) 11:00", "2024/08/09 (Fri) 16:00",
                     "2024/08/15 (Thu) 10:00"],
  "answer_session_ids": ["ans-book", "ans-bday"],
  "haystack_sessions": [[turn("user", "I just booked the night train to Vienna.", True),
                         turn("assistant", "Night trains are a great way to travel.")],
                        fill(5),
                        [turn("user", "Today is my birthday and I am in Vienna!", True),
                         turn("assistant", "Happy birthday! Enjoy a Sachertorte.")]]},
 {"question_id": "sample-lme-dog_abs", "question_type": "single-session-user",
  "question": "What is the name of my dog?", "answer": "You did not mention a dog",
  "question_date": "2024/04/01 (Mon) 09:00",
  "haystack_session_ids": ["f7", "f8"],
  "haystack_dates": ["2024/03/02 (Sat) 10:00", "2024/03/09 (Sat) 10:00"],
  "answer_session_ids": [], "haystack_sessions": [fill(0), fill(3)]},
]
(OUT / "longmemeval_sample.json").write_text(json.dumps(lme, indent=1, ensure_ascii=False) + "\n")
print("ok")
